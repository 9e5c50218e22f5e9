"""`jupyter console --kernel kotlin-llm` in a pseudo-terminal: multi-line input, an error, and `exit`."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pexpect
import pytest

TIMEOUT = 60
_ESC = r"(?:\x1b\[[0-9;?]*[A-Za-z])*"  # prompt_toolkit colours the prompt pieces


def prompt(kind: str, number: int) -> str:
    return _ESC.join([kind, r" ?\[", str(number), r"\]: "])


CONTINUATION = _ESC.join([r"\.\.\.", ":"])


def start_console() -> pexpect.spawn:
    env = dict(os.environ, TERM="xterm", COLUMNS="200", LINES="50")
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "jupyter",
            "console",
            "--kernel",
            "kotlin-llm",
            "--ZMQTerminalInteractiveShell.kernel_timeout=180",
        ],
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(50, 200),
    )
    child.logfile_read = open(os.environ.get("KOTLIN_LLM_CONSOLE_LOG", os.devnull), "w")
    child.expect(prompt("In", 1))
    return child


@pytest.fixture()
def console() -> Iterator[pexpect.spawn]:
    child = start_console()
    yield child
    child.sendcontrol("d")  # end of input; the console asks to confirm
    child.expect("exit")
    child.sendline("y")
    child.expect(pexpect.EOF, timeout=60)
    child.close()


def test_multi_line_function_and_error(console: pexpect.spawn) -> None:
    console.sendline("fun twice(x: Int): Int {")
    console.expect(CONTINUATION)  # is_complete said incomplete: a continuation prompt
    console.sendline("return 2 * x")
    console.expect(CONTINUATION)
    console.sendline("}")
    console.expect(prompt("In", 2))
    console.sendline("twice(21)")
    console.expect(prompt("Out", 2) + _ESC + "42")
    console.expect(prompt("In", 3))
    console.sendline("val broken: String = 1")
    console.expect(r"snippet3\.kts:1:\d+: error: Initializer type mismatch")
    console.expect(prompt("In", 4))


@pytest.mark.parametrize("word", ["exit", "quit()"])
def test_exit_ends_the_console(word: str) -> None:
    child = start_console()
    child.sendline("val kept = 1")
    child.expect(prompt("In", 2))
    child.sendline(word)  # the reply's ask_exit payload: the console ends, and shuts its kernel down
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert child.exitstatus == 0
