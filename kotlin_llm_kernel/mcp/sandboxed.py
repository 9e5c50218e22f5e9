"""``kotlin-llm-mcp --sandbox``: the server runs itself again inside a sandbox (:mod:`kotlin_llm_kernel.sandbox`),
its stdio passing through; this process keeps the egress proxy and waits. Cut results are written to the
workspace's ``.tmp`` (TMPDIR inside), bound at the same path inside and out, so the agent can read those files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from ..sandbox.host import SandboxUnavailable
from ..sandbox.layout import SandboxOptions
from ..sandbox.sandbox import Sandbox

#: The server's own module, run inside.
MODULE = "kotlin_llm_kernel.mcp"
#: The workspace's directory for temporary files (TMPDIR inside).
TMP = ".tmp"


def inner_arguments(argv: list[str], workspace: Path, url: Callable[[str], str]) -> list[str]:
    """The server's arguments inside: the sandbox's own options dropped, each repository's URL as ``url`` gives it
    (:meth:`.Sandbox.url`); a ``--local-repository`` must lie in the workspace (the only place it could be
    written)."""
    inner: list[str] = []
    words = iter(argv)
    for word in words:
        name, has_value, value = word.partition("=")
        if name == "--sandbox":
            continue
        if name in ("--workspace", "--network"):
            if not has_value:
                next(words, None)
            continue
        if name == "--repository":
            inner += ["--repository", url(value if has_value else next(words, ""))]
            continue
        if name == "--local-repository":
            path = Path(os.path.abspath(value if has_value else next(words, "")))
            if workspace != path and workspace not in path.parents:
                raise SandboxUnavailable(
                    f"--local-repository {path} is outside the workspace {workspace}, which is all a sandboxed "
                    "session can write: give one in the workspace, or none (the sandbox's home has its own)."
                )
            inner += ["--local-repository", str(path)]
            continue
        inner.append(word)
    return inner


def run_sandboxed(argv: list[str], options: SandboxOptions) -> int:
    """Runs the server inside a sandbox with stdio passed through; its exit status."""
    with Sandbox(options) as sandbox:
        tmp = sandbox.workspace / TMP
        tmp.mkdir(exist_ok=True)
        if sandbox.user.drop:
            os.chown(tmp, sandbox.user.uid, sandbox.user.gid)
        command = sandbox.command(
            sandbox.python("-m", MODULE, *inner_arguments(argv, sandbox.workspace, sandbox.url)),
            env={"TMPDIR": str(tmp)},
        )
        child = subprocess.Popen(command)

        def forward(number: int, frame: FrameType | None) -> None:
            child.terminate()

        for number in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, forward)
        try:
            return child.wait()
        except KeyboardInterrupt:
            child.terminate()
            return child.wait()


def main_sandboxed(argv: list[str], options: SandboxOptions) -> None:
    try:
        code = run_sandboxed(argv, options)
    except SandboxUnavailable as error:
        sys.exit(f"kotlin-llm-mcp: the sandbox cannot start, so the server does not: {error}")
    sys.exit(code)
