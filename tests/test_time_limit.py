"""The time limit per cell (setting cell_time_limit, variable KERNEL_CELL_TIME_LIMIT) of real kernels: a cell past
it is interrupted as by the user, sleeping, spinning or deep in JDK code, and its error says the limit; the session
goes on with its state; waiting for input does not count; no limit by default; a bad limit stops the kernel's start
with a one-line error."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
from jupyter_client.manager import KernelManager
from kotlin_llm_kernel.config.time_limit import ENV_CELL_TIME_LIMIT

from kernel_client import KERNEL, collect, execute, running_kernel, warm_up
from maven_repository import add_artifact, served

#: Long enough for any short cell of these tests to compile and run on a loaded machine, short enough to wait for.
LIMIT = 4
#: Only catches a hang: a cell past the limit ends within the 1.5 s an interrupt takes at most.
HANG_GUARD = 120
HINT = (
    "hint: split the work into shorter cells, or raise the limit (setting cell_time_limit; KERNEL_CELL_TIME_LIMIT "
    "when a gateway starts the kernel)"
)


def _env(**extra: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != ENV_CELL_TIME_LIMIT} | extra


@pytest.fixture(scope="module")
def slow_repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Maven repository on 127.0.0.1 whose jar takes longer than the limit to come."""
    root = tmp_path_factory.mktemp("repo")
    source = 'package com.example.slow;\npublic class Slow { public static String hello() { return "hello"; } }\n'
    add_artifact(root, "com.example", "slow", "1.0", {"com.example.slow.Slow": source})
    with served(root, jar_delay=LIMIT + 1) as url:
        yield url


@pytest.fixture(scope="module")
def limited(slow_repository: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    """A kernel whose limit comes from the gateway's variable, as Enterprise Gateway or Kernel Gateway pass it."""
    arguments = [
        f"--KotlinKernel.local_repository={tmp_path_factory.mktemp('local-repo')}",
        f"--KotlinKernel.repositories={json.dumps([slow_repository])}",
    ]
    with running_kernel(env=_env(**{ENV_CELL_TIME_LIMIT: str(LIMIT)}), extra_arguments=arguments) as (km, kc):
        process = psutil.Process(km.provisioner.pid)
        warm_up(kc)
        assert execute(kc, "val keep = 42").status == "ok"
        yield km, kc
    assert not process.is_running(), "the kernel process ended"


def ran_past(kc: Any, code: str) -> Any:
    cell = execute(kc, code, timeout=HANG_GUARD)
    number = cell.content["execution_count"]
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == "TimeLimitExceeded", cell.content
    assert cell.kotlin_llm["interrupted"] is True
    assert cell.kotlin_llm["time_limit_exceeded"] is True
    assert cell.error is not None and cell.error["traceback"] == cell.content["traceback"]
    assert cell.content["traceback"][-1] == HINT
    expected = f"snippet{number}.kts ran longer than the time limit of {LIMIT} s (setting cell_time_limit)"
    assert cell.content["traceback"][0] == f"TimeLimitExceeded: {cell.content['evalue']}"
    assert cell.content["evalue"] == f"{expected} and was interrupted; the session keeps its state"
    return cell


def assert_kept(kc: Any) -> None:
    after = execute(kc, "keep")
    assert after.result == "42", after.content
    assert after.kotlin_llm["time_limit_exceeded"] is False


def test_a_sleeping_loop_is_interrupted_at_the_limit(limited: tuple[Any, Any]) -> None:
    _km, kc = limited
    cell = ran_past(kc, "var naps = 0\nwhile (true) {\n    Thread.sleep(100)\n    naps++\n}")
    number = cell.content["execution_count"]
    assert cell.content["traceback"][1:-1] == [
        "java.lang.InterruptedException: sleep interrupted",
        f"  at <snippet body>(snippet{number}.kts:3)",
        "  |     Thread.sleep(100)",
    ]
    assert_kept(kc)
    assert execute(kc, "naps > 0").result == "true", "what the cell did before the limit stays"


def test_a_busy_loop_is_interrupted_at_the_limit(limited: tuple[Any, Any]) -> None:
    _km, kc = limited
    cell = ran_past(kc, "var spins = 0L\nwhile (true) { spins++ }")
    number = cell.content["execution_count"]
    assert cell.content["traceback"][1:-1] == [
        "java.lang.InterruptedException: the snippet was cancelled while running",
        f"  at <snippet body>(snippet{number}.kts:2)",
        "  | while (true) { spins++ }",
    ]
    assert_kept(kc)


def test_a_loop_in_jdk_code_is_stopped_at_the_limit(limited: tuple[Any, Any]) -> None:
    _km, kc = limited
    cell = ran_past(kc, "java.math.BigInteger.valueOf(3).pow(300_000_000).bitLength()")
    number = cell.content["execution_count"]
    report = cell.content["traceback"][1:-1]
    assert report[0].startswith(
        "org.kotlinllm.script.runtime.SnippetInterruptedError: the snippet ignored the interrupt and was stopped in "
        "java."
    ), report
    assert report[0].endswith("; objects it was changing there may be left inconsistent"), report
    assert report[1:] == [
        f"  at <snippet body>(snippet{number}.kts:1)",
        "  | java.math.BigInteger.valueOf(3).pow(300_000_000).bitLength()",
    ]
    assert_kept(kc)


def test_a_cell_within_the_limit_is_not_touched(limited: tuple[Any, Any]) -> None:
    _km, kc = limited
    cell = execute(kc, 'Thread.sleep(200)\nprintln("slept")\nkeep + 1')
    assert cell.status == "ok", cell.content
    assert (cell.stdout, cell.result) == ("slept\n", "43")
    assert cell.kotlin_llm["interrupted"] is False
    assert cell.kotlin_llm["time_limit_exceeded"] is False


def test_waiting_for_input_does_not_count(limited: tuple[Any, Any]) -> None:
    _km, kc = limited
    msg_id = kc.execute('println("asking")\nval answer = readLine()\n"got $answer"', allow_stdin=True)
    request = kc.get_stdin_msg(timeout=HANG_GUARD)
    assert request["msg_type"] == "input_request"
    time.sleep(LIMIT + 1)  # wall-clock time past the limit goes by while the read waits: it must not count
    kc.input("typed")
    cell = collect(kc, msg_id, timeout=HANG_GUARD)
    assert cell.status == "ok", cell.content
    assert (cell.stdout, cell.result) == ("asking\n", "got typed"), cell.content
    assert cell.kotlin_llm["time_limit_exceeded"] is False


def test_waiting_for_a_dependency_to_download_does_not_count(limited: tuple[Any, Any]) -> None:
    _km, kc = limited
    cell = execute(kc, '@file:DependsOn("com.example:slow:1.0")\ncom.example.slow.Slow.hello()', timeout=HANG_GUARD)
    assert cell.status == "ok", cell.content
    assert cell.result == "hello"
    assert cell.kotlin_llm["time_limit_exceeded"] is False


def test_there_is_no_limit_by_default() -> None:
    with running_kernel(env=_env()) as (_km, kc):
        cell = execute(kc, f"Thread.sleep({(LIMIT + 1) * 1000})\n1")  # past the limit of the other kernel
        assert cell.result == "1"
        assert cell.kotlin_llm["time_limit_exceeded"] is False


@pytest.mark.parametrize(
    ("arguments", "env", "message"),
    [
        (
            [],
            {ENV_CELL_TIME_LIMIT: "soon"},
            "KERNEL_CELL_TIME_LIMIT: 'soon' is not a number; give a number of seconds, 0 or more (e.g. 30 or 2.5; "
            "0: no limit)",
        ),
        (
            [],
            {ENV_CELL_TIME_LIMIT: "-5"},
            "KERNEL_CELL_TIME_LIMIT: '-5' is negative; give a number of seconds, 0 or more (e.g. 30 or 2.5; 0: no "
            "limit)",
        ),
        (
            ["--KotlinKernel.cell_time_limit=-1"],
            {},
            "cell_time_limit: -1.0 is negative; give a number of seconds, 0 or more (e.g. 30 or 2.5; 0: no limit)",
        ),
    ],
    ids=["env-not-a-number", "env-negative", "setting-negative"],
)
def test_a_bad_limit_stops_the_start_with_a_clear_error(
    arguments: list[str], env: dict[str, str], message: str
) -> None:
    km = KernelManager(kernel_name=KERNEL)
    km.start_kernel(extra_arguments=arguments, env=_env(**env), stderr=subprocess.PIPE)
    try:
        process = km.provisioner.process
        assert process.wait(timeout=HANG_GUARD) == 1
        lines = process.stderr.read().decode().splitlines()
        assert lines[-1] == f"kotlin-llm kernel: not started: {message}", lines
    finally:
        km.cleanup_resources()
