"""`jupyter console --kernel kotlin-llm` in a pseudo-terminal: multi-line input, an error, and `exit`."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tmux_console import CONSOLE_ARGUMENTS, console_in_tmux

TIMEOUT = 60
_ESC = r"(?:\x1b\[[0-9;?]*[A-Za-z])*"  # prompt_toolkit colours the prompt pieces


def prompt(kind: str, number: int) -> str:
    return _ESC.join([kind, r" ?\[", str(number), r"\]: "])


CONTINUATION = _ESC.join([r"\.\.\.", ":"])


def start_console() -> pexpect.spawn:
    env = dict(os.environ, TERM="xterm", COLUMNS="200", LINES="50")
    child = pexpect.spawn(
        sys.executable,
        list(CONSOLE_ARGUMENTS),
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


#: A cell that computes for minutes inside JDK code, which ignores the engine's cancellation; it says first that it
#: runs, so that the interrupt comes while it computes.
LONG_CELL = (
    'println("computing {n}"); java.io.File("{started}").writeText(""); '
    "java.math.BigInteger.valueOf(3).pow(300_000_000).bitLength()"
)
#: Only catches a hang: an interrupted cell ends within two seconds.
INTERRUPT_HANG_GUARD = 60
INTERRUPTS = 10
PROMPT = r"In \[\d+\]: "
#: The first line of an interrupted cell's error, whichever way it ended (stopped, cancelled, not stoppable).
REPORT = r"Interrupted(Error|Exception)|SnippetNotStopped"


def wait_for_file(path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"the cell did not start within {timeout} s"
        time.sleep(0.05)


def test_an_interrupted_cell_shows_its_report_before_the_next_prompt(tmp_path: Path) -> None:
    """The console takes the idle status of its interrupt_request for the end of the cell, then prints what iopub
    holds once the execute_reply came: the cell's error must be there by then, not after the next prompt.

    The test learns that a cell runs from a file it writes, not from the console: when the idle status of the cell
    before came after that reply, the console takes it for this cell's and shows nothing until this cell's reply.
    """
    with console_in_tmux() as console:
        for n in range(1, INTERRUPTS + 1):
            started = tmp_path / f"started-{n}"
            console.send_line(LONG_CELL.format(started=started, n=n))
            wait_for_file(started, INTERRUPT_HANG_GUARD)
            console.send_key("C-c")
            text = console.wait_for(PROMPT, INTERRUPT_HANG_GUARD, count=n + 1)
            shown = re.split(PROMPT, text)[n]  # from the cell's prompt to the next one
            assert len(re.findall(REPORT, shown)) == 1, (
                f"cell {n}'s report is not shown before the next prompt:\n{text}"
            )
        console.send_line('println("after the interrupts")')
        text = console.wait_for(r"\nafter the interrupts\n", INTERRUPT_HANG_GUARD)
    assert not re.search(REPORT, re.split(PROMPT, text)[INTERRUPTS + 1]), "a report came late:\n" + text
    # What each cell printed is shown, though not always before its prompt: the console may take a late idle status
    # for the cell's end and print a stream message that came after the reply only with the next cell (its own race)
    missing = [n for n in range(1, INTERRUPTS + 1) if f"computing {n}\n" not in text]
    assert not missing, f"the output of cells {missing} was never shown:\n{text}"
