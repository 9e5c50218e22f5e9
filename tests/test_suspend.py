"""Suspend calls at the top level of a cell, over the real protocol: they run as in a coroutine, and an interrupt (by
message and by signal) cancels them and keeps the session."""

from __future__ import annotations

from typing import Any

import pytest

from kernel_client import collect, execute, read_until

#: Only catches a hang: the reply to an interrupted cell typically comes within a fraction of a second.
INTERRUPT_HANG_GUARD = 30


def test_top_level_suspend_calls_run(mode_kernel: tuple[Any, Any]) -> None:
    _, kc = mode_kernel
    assert execute(kc, "suspend fun susF(): Int = 42\nvar x = 1").status == "ok"
    cell = execute(kc, "val a = susF()\nfor (i in 1..3) { delay(10); println(i) }\nx = susF()\na + x")
    assert cell.status == "ok", cell.content
    assert cell.stdout == "1\n2\n3\n"
    assert cell.result == "84"
    assert execute(kc, "susF()").result == "42"


@pytest.mark.parametrize(
    "body",
    ["delay(60_000); return 1", "var n = 0L; while (true) { n++ }"],
    ids=["delay", "busy-loop"],
)
def test_interrupt_cancels_a_top_level_suspend_call(mode_kernel: tuple[Any, Any], body: str) -> None:
    km, kc = mode_kernel
    declared = execute(kc, f'val keep = 42\nsuspend fun slow(): Int {{ println("started"); {body} }}')
    assert declared.status == "ok", declared.content
    msg_id = kc.execute("val a = slow()")
    seen = read_until(kc, msg_id, "started")
    km.interrupt_kernel()
    cell = collect(kc, msg_id, timeout=INTERRUPT_HANG_GUARD, seen=seen)
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == "java.lang.InterruptedException", cell.content
    assert cell.content["traceback"][-1] == "  | val a = slow()", cell.content
    assert cell.kotlin_llm["interrupted"] is True
    assert execute(kc, "keep + before").result == "49", "the session keeps its state"
    assert km.is_alive()
