"""The sandbox itself, without a session: the seccomp filter (a refused call fails with EPERM inside and works outside)
and a directory of the sandbox bound writable (as a kernel launcher binds its sockets)."""

from __future__ import annotations

import subprocess
import sys

from kotlin_llm_kernel.sandbox.layout import Bind, SandboxOptions
from kotlin_llm_kernel.sandbox.sandbox import Sandbox

from sandbox_escapes import require_sandbox

#: ptrace(PTRACE_TRACEME): allowed to any process without a filter.
CODE = (
    "import ctypes, os\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "print(libc.syscall(101, 0, 0, 0, 0), os.strerror(ctypes.get_errno()))\n"
)


def test_ptrace_works_outside_and_is_refused_inside() -> None:
    require_sandbox()
    outside = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60, check=True)
    assert outside.stdout == "0 Success\n"
    with Sandbox(SandboxOptions(network="none")) as sandbox:
        inside = subprocess.run(
            sandbox.command(sandbox.python("-c", CODE)), capture_output=True, text=True, timeout=60, check=True
        )
    assert inside.stdout == "-1 Operation not permitted\n"


def test_a_directory_of_the_sandbox_is_bound_writable_where_asked() -> None:
    require_sandbox()
    with Sandbox(SandboxOptions(network="none")) as sandbox:
        sockets = sandbox.directory("jupyter")
        write = "open('/run/jupyter/k-1', 'w').write('bound'); print(open('/run/jupyter/k-1').read())"
        binds = [Bind(sockets, "/run/jupyter", writable=True)]
        inside = subprocess.run(
            sandbox.command(sandbox.python("-c", write), binds=binds),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert inside.stdout == "bound\n"
        assert (sockets / "k-1").read_text(encoding="utf-8") == "bound"
    assert not sockets.exists()
