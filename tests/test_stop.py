"""An interrupt ends a cell stuck in JDK or library code, on JDK 17 and on JDK 25; what cannot be stopped is
reported, and later cells say the session is busy until it ends; a cell interrupted while it compiles never runs."""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest

from kernel_client import collect, execute, read_until

#: Only catches a hang: the engine gives its cancellation 0.5 s, then stops the thread, and gives up after 1.5 s.
HANG_GUARD = 60


def pid_of(kc: Any) -> str | None:
    return execute(kc, "ProcessHandle.current().pid()").result


def interrupted(km: Any, kc: Any, code: str) -> Any:
    """Runs ``code``, which prints "started" before its long work, interrupts it then, and returns the cell."""
    msg_id = kc.execute(code)
    seen = read_until(kc, msg_id, "started")
    km.interrupt_kernel()
    return collect(kc, msg_id, timeout=HANG_GUARD, seen=seen)


def assert_kept(kc: Any, pid: str | None) -> None:
    assert execute(kc, "keep").result == "42", "the session keeps its state"
    assert pid_of(kc) == pid, "the same kernel process"


@pytest.mark.parametrize(
    "work",
    [
        "java.math.BigInteger.valueOf(3).pow(300_000_000).bitLength()",
        "java.util.stream.LongStream.range(0, Long.MAX_VALUE).sum()",
    ],
    ids=["BigInteger.pow", "LongStream.sum"],
)
def test_a_loop_in_jdk_code_is_stopped(fault_kernel: tuple[Any, Any], work: str) -> None:
    km, kc = fault_kernel
    pid = pid_of(kc)
    cell = interrupted(km, kc, f'println("started")\n{work}')
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == "org.kotlinllm.script.runtime.SnippetInterruptedError", cell.content
    assert cell.content["evalue"].startswith("the snippet ignored the interrupt and was stopped in java."), cell.content
    assert cell.content["evalue"].endswith("; objects it was changing there may be left inconsistent")
    assert cell.content["traceback"][1:] == [
        "  at <snippet body>(snippet{}.kts:2)".format(cell.content["execution_count"]),
        f"  | {work}",
    ]
    assert cell.kotlin_llm["interrupted"] is True
    assert_kept(kc, pid)


@pytest.mark.parametrize(
    "code",
    [
        'println("started")\njava.util.stream.IntStream.iterate(0) { it }.filter { false }.findFirst()',
        'println("started")\ngenerateSequence(0) { it }.filter { it < 0 }.first()',
    ],
    ids=["IntStream", "Sequence"],
)
def test_a_library_loop_calling_a_lambda_stops_in_the_lambda(fault_kernel: tuple[Any, Any], code: str) -> None:
    km, kc = fault_kernel
    pid = pid_of(kc)
    cell = interrupted(km, kc, code)
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == "java.lang.InterruptedException"
    assert cell.content["evalue"] == "the snippet was cancelled while running"
    assert_kept(kc, pid)


def test_a_cell_that_cannot_be_stopped_is_reported_and_the_session_is_busy_until_it_ends(
    fault_kernel: tuple[Any, Any],
) -> None:
    km, kc = fault_kernel
    pid = pid_of(kc)
    code = (
        'val child = ProcessBuilder("sleep", "600").start()\nprintln("started ${child.pid()}")\n'
        "child.inputStream.read()"
    )
    msg_id = kc.execute(code)
    seen = read_until(kc, msg_id, "started")
    child = int("".join(m["content"]["text"] for m in seen if m["msg_type"] == "stream").split()[-1])
    km.interrupt_kernel()
    cell = collect(kc, msg_id, timeout=HANG_GUARD, seen=seen)
    number = cell.content["execution_count"]
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == "SnippetNotStopped"
    assert cell.content["evalue"] == f"snippet{number}.kts did not stop when interrupted and runs on"
    traceback = cell.content["traceback"]
    assert "  at java.io.FileInputStream.readBytes(Native Method)" in traceback
    assert traceback[-2] == f"  at <snippet body>(snippet{number}.kts:3)"
    assert traceback[-1].startswith("Later cells fail until it ends: interrupt again to retry, or restart the kernel")
    busy = execute(kc, "keep")
    assert busy.status == "error"
    assert busy.content["ename"] == "SessionBusy"
    assert busy.content["evalue"] == f"the session still runs snippet{number}.kts, which did not stop when interrupted"
    assert busy.content["traceback"][-1].startswith("This cell did not run: interrupt again to retry")
    os.kill(child, signal.SIGKILL)  # the read returns: the snippet ends, the session is free again
    assert_kept_when_free(kc, pid)


def assert_kept_when_free(kc: Any, pid: str | None) -> None:
    """The session is free once the stuck snippet ended; waits for that by asking, bounded by the hang guard."""
    deadline = time.monotonic() + HANG_GUARD
    while True:
        cell = execute(kc, "keep")
        if cell.status == "ok" or time.monotonic() > deadline:
            break
        assert cell.content["ename"] == "SessionBusy", cell.content
    assert cell.result == "42", cell.content
    assert pid_of(kc) == pid


def test_an_interrupt_while_a_cell_compiles_keeps_it_from_running(fault_kernel: tuple[Any, Any]) -> None:
    km, kc = fault_kernel
    pid = pid_of(kc)
    code = "".join(f"val u{n} = {n}\n" for n in range(5000)) + "var q = 0L\nwhile (true) { q++ }"
    msg_id = kc.execute(code)
    while True:  # busy: the kernel took the cell, whose compilation takes seconds
        msg = kc.get_iopub_msg(timeout=HANG_GUARD)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "execute_input":
            break
    km.interrupt_kernel()
    cell = collect(kc, msg_id, timeout=HANG_GUARD)
    assert cell.status == "error", cell.content
    assert cell.content["ename"] in ("InterruptedException", "java.lang.InterruptedException")
    assert cell.content["evalue"] == "the snippet was cancelled while it compiled: it did not run"
    assert cell.kotlin_llm["interrupted"] is True
    assert_kept_when_free(kc, pid)
    unrun = execute(kc, "u1")
    assert unrun.status == "error" and "Unresolved reference 'u1'" in unrun.content["evalue"], unrun.content
