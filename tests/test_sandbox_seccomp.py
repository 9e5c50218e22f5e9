"""The seccomp filter in a real sandbox: a refused call fails with EPERM inside and works outside."""

from __future__ import annotations

import subprocess
import sys

from kotlin_llm_kernel.sandbox.layout import SandboxOptions
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
