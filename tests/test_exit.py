"""A cell calling System.exit or Runtime.halt gets an error reply; the kernel process and its session live on. Library
code calling System.exit still ends the process, and the kernel's log says so."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

from kernel_client import KERNEL, STARTUP_TIMEOUT, execute

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


def test_an_exit_by_library_code_is_logged(tmp_path: Path) -> None:
    """Reflection calls System.exit from JDK code, which the engine does not rewrite: the process ends, and its log
    (the kernel's stderr) names the snippet and where exit was called."""
    log = tmp_path / "kernel.log"
    with log.open("w") as stderr:
        km, kc = start_new_kernel(kernel_name=KERNEL, startup_timeout=STARTUP_TIMEOUT, stderr=stderr)
    try:
        assert execute(kc, "val keep = 42").status == "ok"
        kc.execute('System::class.java.getMethod("exit", Int::class.javaPrimitiveType).invoke(null, 5)')
        assert km.provisioner.process.wait(timeout=60) == 5
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=True)
        else:
            km.cleanup_resources()  # its control socket and connection file
    text = log.read_text(encoding="utf-8")
    assert re.search(
        r"kotlin-llm engine: the process is ending: System\.exit or Runtime\.exit was called by code that is not a "
        r"snippet's own while snippet2\.kts of session \d+ runs\n",
        text,
    ), text
    assert "(snippet2.kts:1)" in text, text
