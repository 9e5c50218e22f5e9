"""Habits of other notebooks over the real protocol: JetBrains' magics, ``exit``/``quit``, ``vars()``."""

from __future__ import annotations

from typing import Any

import pytest

from kernel_client import Cell, execute

pytestmark = pytest.mark.usefixtures("kernel")

ASK_EXIT = {"source": "ask_exit", "keepkernel": False}


@pytest.fixture(scope="module")
def kc(kernel: tuple[Any, Any]) -> Any:
    return kernel[1]


def snippet(cell: Cell) -> str:
    return f"snippet{cell.content['execution_count']}.kts"


def test_a_magic_is_an_error_naming_the_equivalent(kc: Any) -> None:
    cell = execute(kc, "%trackClasspath\nval notDeclared = 1")
    name = snippet(cell)
    assert cell.status == "error"
    assert cell.content["ename"] == "CompilationError"
    assert cell.content["evalue"] == (
        f"{name}:1:1: error: `%trackClasspath` is a line magic of JetBrains' Kotlin kernel; this kernel has no magics"
    )
    assert cell.content["traceback"][1:] == [
        "  | <error>%trackClasspath</error>",
        'hint: @file:DependsOn("group:artifact") adds a library to the classpath, and a cell using it reports the '
        "versions it resolved",
    ]
    assert cell.kotlin_llm["phase"] == "COMPILATION"
    assert execute(kc, "notDeclared").content["ename"] == "CompilationError"  # nothing of the cell ran


def test_exit_and_quit_ask_the_client_to_exit(kc: Any) -> None:
    for code in ("exit", "quit", " exit() \n", "quit()"):
        cell = execute(kc, code)
        assert cell.status == "ok"
        assert cell.content["payload"] == [ASK_EXIT]
        assert cell.messages == []  # nothing ran, nothing was shown


def test_a_session_declaring_exit_keeps_its_own(kc: Any) -> None:
    execute(kc, 'fun quit() = "the session\'s own quit"')
    cell = execute(kc, "quit()")
    assert cell.content["payload"] == []
    assert cell.result == "the session's own quit"
    assert execute(kc, "exit").content["payload"] == [ASK_EXIT]  # exit is still the console's


def test_vars_lists_the_declarations_with_their_types(kc: Any) -> None:
    execute(kc, "val xs = listOf(1, 2, 3)\nvar n = 5\nfun greet(name: String, times: Int = 1) = name.repeat(times)")
    cell = execute(kc, "vars()")
    assert cell.status == "ok"
    lines = (cell.result or "").split("\n")
    assert lines[-3:] == [
        "val xs: List<Int> = [1, 2, 3]",
        "var n: Int = 5",
        "fun greet(name: String, times: Int = 1): String",
    ]
