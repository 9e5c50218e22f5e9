"""Settings given as --KotlinKernel.x= arguments, restart, shutdown, and a kernel without Java."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kernel_client import execute, request, running_kernel, warm_up

PROPERTIES = {"greeting": "Hello", "answer": 42, "ratio": 0.5, "flag": True, "names": ["a", "b"], "config": {"k": "v"}}
SETTINGS = [
    "--KotlinKernel.show_warnings=False",
    f"--KotlinKernel.properties={json.dumps(PROPERTIES)}",
    "--KotlinKernel.max_output_chars=1000",
    "--KotlinKernel.jvm_options=['-Xmx700m']",
    "--KotlinKernel.log_level=DEBUG",
]
#: Only catches a kernel that does not exit: it typically exits within a second of the request.
SHUTDOWN_HANG_GUARD = 30


@pytest.fixture(scope="module")
def configured() -> Iterator[tuple[Any, Any]]:
    with running_kernel(extra_arguments=SETTINGS) as (km, kc):
        warm_up(kc)
        yield km, kc


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("greeting", "Hello"),
        ("answer + 1", "43"),
        ("(answer as Any)::class.simpleName", "Long"),
        ("ratio * 2", "1.0"),
        ("!flag", "false"),
        ("names.joinToString()", "a, b"),
        ('config["k"]', "v"),
    ],
)
def test_provided_properties(configured: tuple[Any, Any], code: str, expected: str) -> None:
    cell = execute(configured[1], code)
    assert cell.status == "ok", cell.content
    assert cell.result == expected


def test_jvm_options(configured: tuple[Any, Any]) -> None:
    cell = execute(
        configured[1], 'java.lang.management.ManagementFactory.getRuntimeMXBean().inputArguments.joinToString(" ")'
    )
    assert "-Xmx700m" in cell.result and "-Xrs" in cell.result


def test_warnings_can_be_hidden(configured: tuple[Any, Any]) -> None:
    cell = execute(configured[1], '@Deprecated("old")\nfun hidden() = 1\nhidden()')
    assert cell.status == "ok" and cell.result == "1"
    assert "warning" not in cell.stderr
    assert cell.kotlin_llm["warnings"], "the reply metadata still has them"


def test_output_past_the_limit_is_cut_with_a_notice(configured: tuple[Any, Any]) -> None:
    cell = execute(configured[1], 'repeat(500) { println("line $it") }')
    assert cell.status == "ok"
    assert len(cell.stdout) == 1000
    assert "output cut" in cell.stderr and "max_output_chars" in cell.stderr


def test_restart_gives_a_new_session(configured: tuple[Any, Any]) -> None:
    km, kc = configured
    assert execute(kc, "val beforeRestart = 1").status == "ok"
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=180)
    gone = execute(kc, "beforeRestart")
    assert gone.status == "error" and gone.content["ename"] == "CompilationError"
    assert gone.content["execution_count"] == 1
    assert execute(kc, "greeting").result == "Hello"


def test_shutdown_request_ends_the_kernel_despite_java_threads(configured: tuple[Any, Any]) -> None:
    km, kc = configured
    execute(kc, "Thread { Thread.sleep(600_000) }.apply { isDaemon = false }.start()")
    process = km.provisioner.process
    kc.shutdown()
    process.wait(timeout=SHUTDOWN_HANG_GUARD)  # a non-daemon Java thread must not keep the process alive
    assert not km.is_alive(), "the kernel must exit after shutdown_request"


def test_missing_java_is_explained(tmp_path: Path) -> None:
    env = dict(os.environ, JAVA_HOME=str(tmp_path / "no-jdk-here"))
    with running_kernel(env=env) as (_km, kc):
        cell = execute(kc, "1 + 1")
        assert cell.status == "error"
        assert cell.content["ename"] == "KernelStartupError"
        assert "install a JDK 17 or newer" in cell.content["evalue"]
        assert request(kc, "kernel_info_request")["content"]["language_info"]["name"] == "kotlin"
