"""`jupyter console --kernel kotlin-llm` in a tmux pane of a private tmux server: keys go in, and the pane's whole
text (its scrollback joined, colours left out) is read back as a person would see it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

#: Only catches a hang: the console shows its first prompt once the kernel has started (well under a minute).
START_HANG_GUARD = 180
#: Seconds between two reads of the pane while waiting for a text.
POLL_SECONDS = 0.1
WIDTH, HEIGHT = 200, 50


#: `python` arguments of a console on the kotlin-llm kernel, whose first start (the compiler's) may take a while.
CONSOLE_ARGUMENTS = (
    "-m",
    "jupyter",
    "console",
    "--kernel",
    "kotlin-llm",
    "--ZMQTerminalInteractiveShell.kernel_timeout=180",
)


def require_tmux() -> str:
    """tmux, or the test fails saying how to get it (a test never skips for want of a part)."""
    found = shutil.which("tmux")
    if found is None:
        pytest.fail(
            "console test failed: no tmux found (scripts/setup.sh installs it with apt-get when it runs as root or "
            "with passwordless sudo; else install it: apt-get install tmux)"
        )
    return found


class TmuxConsole:
    """One console in the only pane of a tmux server of its own (its socket in a temporary folder)."""

    def __init__(self, tmux: str, socket: Path) -> None:
        self._tmux = tmux
        self._socket = socket

    def _run(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self._tmux, "-S", str(self._socket), *arguments], capture_output=True, text=True, check=False
        )

    def start(self, command: list[str]) -> None:
        # the server is started here, from this process's environment (JUPYTER_PATH of the tests' kernelspecs)
        started = self._run("-f", os.devnull, "new-session", "-d", "-x", str(WIDTH), "-y", str(HEIGHT), *command)
        assert started.returncode == 0, f"tmux could not start the console: {started.stderr}"
        self._run("set-option", "-g", "history-limit", "100000")

    def alive(self) -> bool:
        return self._run("has-session").returncode == 0

    def text(self) -> str:
        """Everything the pane showed, from the top of its scrollback, wrapped lines joined."""
        captured = self._run("capture-pane", "-p", "-J", "-S", "-", "-E", "-")
        return captured.stdout

    def send_line(self, line: str) -> None:
        self._run("send-keys", "-l", line)
        self._run("send-keys", "Enter")

    def send_key(self, key: str) -> None:
        """A key in tmux's names: ``C-c``, ``C-d``, ``Enter``."""
        self._run("send-keys", key)

    def wait_for(self, pattern: str, timeout: float, count: int = 1) -> str:
        """The pane's text once ``pattern`` (a regular expression) occurs ``count`` times in it; fails after
        ``timeout`` seconds, showing the pane."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.text()
            if len(re.findall(pattern, text)) >= count:
                return text
            if time.monotonic() > deadline or not self.alive():
                pytest.fail(f"{pattern!r} did not appear {count} time(s) in the console; it shows:\n{text}")
            time.sleep(POLL_SECONDS)

    def wait_until_ended(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.alive():
            if time.monotonic() > deadline:
                pytest.fail(f"the console did not end; it shows:\n{self.text()}")
            time.sleep(POLL_SECONDS)

    def kill(self) -> None:
        self._run("kill-server")


@contextmanager
def console_in_tmux() -> Iterator[TmuxConsole]:
    """A console on a new kotlin-llm kernel, at its first prompt; ended (and its kernel shut down) at the end."""
    tmux = require_tmux()
    with tempfile.TemporaryDirectory(prefix="kotlin-llm-tmux-") as folder:
        console = TmuxConsole(tmux, Path(folder) / "socket")
        console.start([sys.executable, *CONSOLE_ARGUMENTS])
        try:
            console.wait_for(r"In \[1\]: ", START_HANG_GUARD)
            yield console
            console.send_key("C-d")  # end of input: the console asks to confirm, then shuts its kernel down
            console.wait_for(r"exit", 60)
            console.send_line("y")
            console.wait_until_ended(60)
        finally:
            console.kill()
