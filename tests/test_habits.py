"""Habits of other notebooks over the real protocol: JetBrains' magics and commands, ``exit``/``quit``, ``vars()``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernel_client import Cell, execute

pytestmark = pytest.mark.usefixtures("kernel")

ASK_EXIT = {"source": "ask_exit", "keepkernel": False}

#: What `:help` says after its first line (the versions).
HELP = [
    "",
    "Commands (a cell of its own):",
    "    :help - this text",
    "    :classpath - the session's classpath, one entry per line",
    "    :vars - the session's declarations with their types and values, as vars() lists them",
    "",
    "Magics (a line of their own, at a cell's top level):",
    "    %use - loads libraries by name, with their default imports: %use dataframe, lets-plot(4.5.0)",
    "        Libraries: dataframe, lets-plot, kandy, serialization, datetime, ktor-client, coroutines",
    '    %trackExecution - shows the code of each later cell before it runs ("Executing:")',
    "        Usage: %trackExecution [all/generated/off]",
    "    %trackClasspath - lists the jars each later cell adds to the classpath",
    "        Usage: %trackClasspath [on/off]",
    "    %dumpClassesForSpark - writes the later cells' classes to the directory of the system property "
    "spark.repl.class.outputDir",
    "        Usage: %dumpClassesForSpark [on/off]",
    "    %output, %logLevel, %logHandler, %useLatestDescriptors - accepted with a notice: nothing to set here",
    "",
    '@file:DependsOn("group:artifact:version") adds a library by its Maven coordinates; DISPLAY, HTML and Image show '
    "rich output.",
]


@pytest.fixture(scope="module")
def kc(kernel: tuple[Any, Any]) -> Any:
    return kernel[1]


def snippet(cell: Cell) -> str:
    return f"snippet{cell.content['execution_count']}.kts"


def test_an_unknown_magic_is_an_error_naming_help(kc: Any) -> None:
    cell = execute(kc, "%trackClasspth\nval notDeclared = 1")
    name = snippet(cell)
    assert cell.status == "error"
    assert cell.content["ename"] == "CompilationError"
    assert cell.content["evalue"] == (
        f"{name}:1:1: error: `%trackClasspth` is not a line magic of this kernel, "
        "and no Kotlin statement starts with `%`"
    )
    assert cell.content["traceback"][1:] == [
        "  | <error>%trackClasspth</error>",
        'hint: a cell of its own `:help` lists the magics; @file:DependsOn("group:artifact") adds a library',
    ]
    assert cell.kotlin_llm["phase"] == "COMPILATION"
    assert execute(kc, "notDeclared").content["ename"] == "CompilationError"  # nothing of the cell ran


def test_track_execution_shows_each_cell_s_code_until_turned_off(kc: Any) -> None:
    cell = execute(kc, "%trackExecution\nval tracked = 41\ntracked + 1")
    assert cell.status == "ok"
    assert cell.stdout == "Executing:\n\nval tracked = 41\ntracked + 1\n"
    assert cell.result == "42"
    assert execute(kc, "tracked").stdout == "Executing:\ntracked\n"
    assert execute(kc, "%trackExecution off\ntracked").stdout == ""


def test_dump_classes_for_spark_writes_the_cells_classes_where_its_property_says(kc: Any) -> None:
    code = '%dumpClassesForSpark\nclass SparkRow(val x: Int)\nSystem.getProperty("spark.repl.class.outputDir")'
    cell = execute(kc, code)
    number = cell.content["execution_count"]
    written = sorted(path.name for path in Path(cell.result or "").rglob("*.class"))
    assert written == [f"Snippet{number}$SparkRow.class", f"Snippet{number}.class"]
    assert execute(kc, "%dumpClassesForSpark off").status == "ok"


def test_a_magic_without_meaning_here_gives_a_notice_and_the_cell_runs(kc: Any) -> None:
    cell = execute(kc, "%logLevel debug\n6 * 7")
    assert cell.status == "ok"
    assert cell.result == "42"
    assert cell.stderr == (
        f"{snippet(cell)}:1:1: warning: `%logLevel debug`: ignored: the engine's log level is set where its SLF4J "
        "provider is configured (the kernel runs it with none), the kernel's by its setting log_level\n"
        "  | <error>%logLevel debug</error>\n"
    )


def test_the_repl_commands_give_their_texts(kc: Any) -> None:
    execute(kc, "val commandsSee = listOf(1, 2)")
    assert execute(kc, ":vars").result == execute(kc, "vars()").result
    listing = (execute(kc, ":classpath").result or "").split("\n")
    assert listing[0] == f"Current classpath ({len(listing) - 1} paths):"
    assert [Path(entry).exists() for entry in listing[1:]] == [True] * (len(listing) - 1)
    assert any(Path(entry).name.startswith("kotlin-llm-engine-") for entry in listing[1:])
    help_text = (execute(kc, ":help").result or "").split("\n")
    assert help_text[0].startswith("Kotlin ")
    assert help_text[1:] == HELP


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
