"""Interrupts by message (interrupt_request) and by SIGINT cancel the running snippet within 1 s."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import pytest
from kernel_client import KERNEL, SIGNAL_KERNEL, collect, execute, running_kernel, warm_up

INTERRUPT_DEADLINE = 1.0


@pytest.fixture(scope="module", params=[KERNEL, SIGNAL_KERNEL], ids=["message", "signal"])
def mode_kernel(request: pytest.FixtureRequest) -> Iterator[tuple[Any, Any]]:
    with running_kernel(request.param) as (km, kc):
        warm_up(kc)
        assert execute(kc, "val before = 7").status == "ok"
        yield km, kc


def run_and_interrupt(km: Any, kc: Any, code: str) -> tuple[Any, float]:
    """Starts ``code`` (which prints "started" first), interrupts it once it runs; returns the cell and the delay."""
    msg_id = kc.execute(code)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=120)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            if "started" in msg["content"]["text"]:
                break
    time.sleep(0.3)  # let the snippet reach its blocking call
    started = time.monotonic()
    km.interrupt_kernel()
    cell = collect(kc, msg_id, timeout=120)
    return cell, time.monotonic() - started


BUSY_LOOP = 'var spins = 0L\nprintln("started")\nwhile (true) { spins++ }'


@pytest.mark.parametrize(
    "code",
    ['println("started")\nThread.sleep(60000)', 'println("started")\nawait { delay(60000) }', BUSY_LOOP],
    ids=["Thread.sleep", "await-delay", "busy-loop"],
)
def test_interrupt_cancels_the_snippet(mode_kernel: tuple[Any, Any], code: str) -> None:
    km, kc = mode_kernel
    cell, delay = run_and_interrupt(km, kc, code)
    assert cell.status == "error", cell.content
    assert delay <= INTERRUPT_DEADLINE, f"the reply came {delay:.2f} s after the interrupt"
    assert "Interrupt" in cell.content["ename"] or "Cancel" in cell.content["ename"], cell.content
    assert cell.outputs("error")[0]["content"]["traceback"] == cell.content["traceback"]
    assert cell.kotlin_llm["interrupted"] is True
    assert execute(kc, "before").result == "7", "the session keeps its state"
    assert km.is_alive()


def test_idle_interrupt_is_harmless(mode_kernel: tuple[Any, Any]) -> None:
    km, kc = mode_kernel
    km.interrupt_kernel()
    time.sleep(0.5)
    cell = execute(kc, "Thread.sleep(1500)\nbefore + 35")
    assert cell.status == "ok", cell.content
    assert cell.result == "42"


def _jdk_home(version: int) -> str | None:
    script = Path(__file__).resolve().parent.parent / "scripts" / "find-jdk.sh"
    found = subprocess.run(["bash", str(script), str(version)], capture_output=True, text=True, check=False)
    return found.stdout.strip() or None


def test_a_busy_loop_is_interrupted_on_jdk_25() -> None:
    """JDK 20+ has no Thread.stop: the engine's loop checks are what end a loop that ignores interrupts."""
    jdk25 = _jdk_home(25)
    if jdk25 is None:
        pytest.skip("no JDK 25 found (set JDK25_HOME)")
    with running_kernel(extra_arguments=[f"--KotlinKernel.java_home={jdk25}"]) as (km, kc):
        warm_up(kc)
        assert execute(kc, "System.getProperty(\"java.specification.version\")").result == "25"
        cell, delay = run_and_interrupt(km, kc, BUSY_LOOP)
        assert cell.status == "error", cell.content
        assert delay <= INTERRUPT_DEADLINE, f"the reply came {delay:.2f} s after the interrupt"
        assert cell.content["evalue"] == "the snippet was cancelled while running"
        assert execute(kc, "spins > 0").result == "true", "the session keeps its state"
