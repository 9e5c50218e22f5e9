"""Interrupts by message (interrupt_request) and by SIGINT cancel the running snippet and keep the session."""

from __future__ import annotations

import time
from typing import Any

import pytest

from kernel_client import collect, execute, jdk_home, read_until, request, running_kernel, warm_up

#: Only catches a hang: the reply to an interrupted cell typically comes within a fraction of a second.
INTERRUPT_HANG_GUARD = 30


def run_and_interrupt(km: Any, kc: Any, code: str) -> Any:
    """Starts ``code``, interrupts it once it has printed "started", and returns the cell.

    The snippets print "started" right before their blocking call (or inside their loop): an interrupt that comes
    before the call is not lost, as a thread's interrupt and a cancelled coroutine stay so.
    """
    msg_id = kc.execute(code)
    seen = read_until(kc, msg_id, "started")
    km.interrupt_kernel()
    return collect(kc, msg_id, timeout=INTERRUPT_HANG_GUARD, seen=seen)


#: Prints once the loop has run, so that the cancelled loop leaves ``spins > 0`` behind.
BUSY_LOOP = 'var spins = 0L\nwhile (true) { if (++spins == 1000L) println("started") }'


#: The interrupt both cancels the session's job and interrupts the snippet's thread: a blocking call sees the thread's
#: interrupt, a loop the engine's check; a suspended ``delay`` sees whichever comes first.
INTERRUPTED = ("java.lang.InterruptedException",)
INTERRUPTED_OR_CANCELLED = ("java.lang.InterruptedException", "kotlinx.coroutines.JobCancellationException")


@pytest.mark.parametrize(
    ("code", "enames"),
    [
        ('println("started")\nThread.sleep(60000)', INTERRUPTED),
        ('println("started")\nawait { delay(60000) }', INTERRUPTED_OR_CANCELLED),
        (BUSY_LOOP, INTERRUPTED),
    ],
    ids=["Thread.sleep", "await-delay", "busy-loop"],
)
def test_interrupt_cancels_the_snippet(mode_kernel: tuple[Any, Any], code: str, enames: tuple[str, ...]) -> None:
    km, kc = mode_kernel
    cell = run_and_interrupt(km, kc, code)
    assert cell.status == "error", cell.content
    assert cell.content["ename"] in enames, cell.content
    assert cell.outputs("error")[0]["content"]["traceback"] == cell.content["traceback"]
    assert cell.kotlin_llm["interrupted"] is True
    assert execute(kc, "before").result == "7", "the session keeps its state"
    assert km.is_alive()


def interrupt_idle(km: Any, kc: Any) -> None:
    """Interrupts the idle kernel and returns once the kernel has handled the interrupt."""
    if km.kernel_spec.interrupt_mode == "message":
        msg = kc.session.msg("interrupt_request", {})
        kc.control_channel.send(msg)
        while kc.get_control_msg(timeout=60)["parent_header"].get("msg_id") != msg["header"]["msg_id"]:
            pass
    else:
        km.interrupt_kernel()
        # answered by the kernel's main thread, which runs a pending Python signal handler before anything else
        request(kc, "kernel_info_request")


def test_idle_interrupt_is_harmless(mode_kernel: tuple[Any, Any]) -> None:
    km, kc = mode_kernel
    interrupt_idle(km, kc)
    # a leftover interrupt would end the sleep at once, a leftover cancellation the loop at its first turn
    cell = execute(kc, "Thread.sleep(10)\nvar turns = 0\nwhile (turns < 3) { turns++ }\nbefore + 35")
    assert cell.status == "ok", cell.content
    assert cell.result == "42"


def test_a_busy_loop_is_interrupted_on_jdk_25() -> None:
    """JDK 20+ has no Thread.stop: the engine's loop checks are what end a loop that ignores interrupts."""
    jdk25 = jdk_home(25)
    with running_kernel(extra_arguments=[f"--KotlinKernel.java_home={jdk25}"]) as (km, kc):
        warm_up(kc)
        assert execute(kc, 'System.getProperty("java.specification.version")').result == "25"
        cell = run_and_interrupt(km, kc, BUSY_LOOP)
        assert cell.status == "error", cell.content
        assert cell.content["evalue"] == "the snippet was cancelled while running"
        assert execute(kc, "spins > 0").result == "true", "the session keeps its state"


#: Computes for minutes inside JDK code, which ignores the engine's cancellation: the thread is stopped.
LONG_COMPUTATION = 'println("started")\njava.math.BigInteger.valueOf(3).pow(300_000_000).bitLength()'


@pytest.mark.parametrize("attempt", range(10))
def test_the_error_of_an_interrupted_cell_is_on_iopub_when_its_reply_comes(
    mode_kernel: tuple[Any, Any], attempt: int
) -> None:
    """What ``jupyter console`` does after an interrupt: it reads the reply, then only the iopub messages already
    there; the cell's error is one of them, and comes before its idle status, under its request."""
    km, kc = mode_kernel
    msg_id = kc.execute(LONG_COMPUTATION)
    messages = read_until(kc, msg_id, "started")
    km.interrupt_kernel()
    deadline = time.monotonic() + INTERRUPT_HANG_GUARD
    while (reply := kc.get_shell_msg(timeout=max(deadline - time.monotonic(), 0.1)))["parent_header"].get(
        "msg_id"
    ) != msg_id:
        pass
    while kc.iopub_channel.msg_ready():
        messages.append(kc.get_iopub_msg(timeout=0))
    errors = [m for m in messages if m["msg_type"] == "error" and m["parent_header"].get("msg_id") == msg_id]
    assert len(errors) == 1, f"the error was not on iopub when the reply came: {[m['msg_type'] for m in messages]}"
    assert errors[0]["content"]["traceback"] == reply["content"]["traceback"]
    while not any(is_idle(m, msg_id) for m in messages):
        messages.append(kc.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1)))
    idle = next(i for i, m in enumerate(messages) if is_idle(m, msg_id))
    assert messages.index(errors[0]) < idle
    assert execute(kc, "before").result == "7", "the session keeps its state"


def is_idle(message: dict[str, Any], msg_id: str) -> bool:
    return (
        message["msg_type"] == "status"
        and message["content"]["execution_state"] == "idle"
        and message["parent_header"].get("msg_id") == msg_id
    )
