"""A cell calling System.exit or Runtime.halt gets an error reply; the kernel process and its session live on."""

from __future__ import annotations

from typing import Any

import pytest

from kernel_client import execute

REFUSED = "org.kotlinllm.script.runtime.ExitRefusedException"
WHY = "a snippet cannot end the kernel; to end the session, restart the kernel"


def kernel_pid(kc: Any) -> str | None:
    """The process id the kernel's JVM runs in, as a cell sees it."""
    return execute(kc, "ProcessHandle.current().pid()").result


@pytest.mark.parametrize(
    ("code", "call"),
    [("System.exit(3)", "System.exit(3)"), ("Runtime.getRuntime().halt(1)", "Runtime.halt(1)")],
    ids=["System.exit", "Runtime.halt"],
)
def test_a_cell_cannot_end_the_kernel(kernel: tuple[Any, Any], code: str, call: str) -> None:
    km, kc = kernel
    assert execute(kc, "val keep = 42").status == "ok"
    pid = kernel_pid(kc)
    assert pid == str(km.provisioner.pid), "the cells run in the process the kernel manager started"

    cell = execute(kc, f'println("before")\n{code}', timeout=60)
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == REFUSED
    assert cell.content["evalue"] == f"{call} was refused: {WHY}"
    name = f"snippet{cell.content['execution_count']}.kts"
    assert cell.content["traceback"] == [
        f"{REFUSED}: {call} was refused: {WHY}",
        f"  at <snippet body>({name}:2)",
        f"  | {code}",
    ]
    assert cell.stdout == "before\n"

    assert execute(kc, "keep").result == "42", "the session keeps its state"
    assert kernel_pid(kc) == pid, "the same kernel process"
    assert km.is_alive()
