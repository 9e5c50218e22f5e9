"""Notebooks executed headless with nbclient (allow_errors): error outputs checked to the character, and the tour as
scripts/tour.sh runs it (scripts/run_notebook.py) and prints it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent


def run(notebook: Any) -> Any:
    NotebookClient(notebook, kernel_name="kotlin-llm", allow_errors=True, timeout=300, startup_timeout=180).execute()
    return notebook


def outputs(cell: Any, output_type: str) -> list[Any]:
    return [o for o in cell.outputs if o.output_type == output_type]


def text(cell: Any, stream: str = "stdout") -> str:
    return "".join(o.text for o in outputs(cell, "stream") if o.name == stream)


def result(cell: Any) -> str | None:
    results = outputs(cell, "execute_result")
    return results[0].data["text/plain"] if results else None


def test_error_outputs_to_the_character() -> None:
    nb = run(
        new_notebook(
            cells=[
                new_code_cell("val x = 1"),
                new_code_cell("x + 1"),
                new_code_cell("asdf\nprintln(foo)"),
                new_code_cell(""),
                new_code_cell('fun check(value: Int) {\n    require(value > 0) { "value must be positive" }\n}'),
                new_code_cell("listOf(1, -1).forEach { check(it) }"),
                new_code_cell("x"),
            ]
        )
    )
    cells = nb.cells
    assert [c.execution_count for c in cells[:3]] == [1, 2, 3]
    assert result(cells[1]) == "2"
    [error] = cells[2].outputs
    assert error.output_type == "error"
    assert error.ename == "CompilationError"
    assert error.evalue == "snippet3.kts:1:1: error: Unresolved reference 'asdf'."
    assert "\n".join(error.traceback) == (
        "snippet3.kts:1:1: error: Unresolved reference 'asdf'.\n  | <error>asdf</error>\n\n"
        "snippet3.kts:2:9: error: Unresolved reference 'foo'.\n  | println(<error>foo</error>)"
    )
    assert cells[3].outputs == []
    runtime = cells[5]
    [error] = runtime.outputs
    n_check, n_call = cells[4].execution_count, runtime.execution_count
    assert error.ename == "java.lang.IllegalArgumentException"
    assert error.evalue == "value must be positive"
    assert error.traceback[:3] == [
        "java.lang.IllegalArgumentException: value must be positive",
        f"  at check(snippet{n_check}.kts:2)",
        '  |     require(value > 0) { "value must be positive" }',
    ]
    assert f"(snippet{n_call}.kts:1)" in "\n".join(error.traceback)
    assert result(cells[6]) == "1"


#: Only catches a hang: the tour runs in well under a minute once its kernel started.
TOUR_TIMEOUT = 600


def test_tour_notebook(tmp_path: Path) -> None:
    executed = tmp_path / "tour.ipynb"
    printed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "run_notebook.py"), "notebooks/tour.ipynb", "--output", str(executed)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TOUR_TIMEOUT,
        check=False,
    )
    assert printed.returncode == 0, printed.stderr
    # what a newcomer reads: the cells and their outputs, from the first line on, and no log of the kernel's
    assert printed.stdout.startswith("In [1]:\n"), printed.stdout
    assert "without encryption" not in printed.stdout + printed.stderr, printed.stderr
    assert "WARNING" not in printed.stderr, printed.stderr
    # rich outputs say which types they have beside the text shown
    lines = printed.stdout.splitlines()
    assert "Out: [text/html, text/plain] [City(name=Lyon, population=522000), City(name=Porto, population=232000)]" in (
        lines
    ), printed.stdout
    assert any(line.startswith("Out: [image/png, text/plain] BufferedImage 120×80 px") for line in lines)
    assert "Out: Hello, Alice, Bob" in lines
    nb = nbformat.read(executed, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    by_source = {c.source.split("\n", 1)[0]: c for c in code}
    assert result(code[1]) == "Hello, Alice, Bob"
    assert outputs(code[2], "error")[0].ename == "CompilationError"
    assert outputs(code[2], "error")[0].traceback[0] == "snippet3.kts:1:1: error: Unresolved reference 'asdf'."
    runtime = outputs(by_source["listOf(3, -1).forEach { check(it) }"], "error")[0]
    assert runtime.traceback[0] == "java.lang.IllegalArgumentException: value must be positive"
    assert result(by_source["val squares = await {"]) == "14"
    assert text(by_source["val job = launch {"]) == "printed by a launched coroutine\n"
    ticks = by_source["for (i in 1..3) {"]
    assert text(ticks) == "tick 1\ntick 2\ntick 3\n" and text(ticks, "stderr") == "done ticking\n"
    warned = by_source['@Deprecated("use greet()")']
    assert "warning:" in text(warned, "stderr") and result(warned) == "Hello, Alice, Bob"
    table = outputs(by_source["data class City(val name: String, val population: Int)"], "execute_result")[0]
    assert table.data["text/html"].startswith("<table><tr><th>city</th>")
    assert table.data["text/plain"] == "[City(name=Lyon, population=522000), City(name=Porto, population=232000)]"
    picture = outputs(
        by_source["val picture = java.awt.image.BufferedImage(120, 80, java.awt.image.BufferedImage.TYPE_INT_ARGB)"],
        "execute_result",
    )[0]
    assert picture.metadata == {"image/png": {"width": 120, "height": 80}}
    progress = by_source['println("progress:")']
    assert [o.data["text/plain"] for o in outputs(progress, "display_data")] == ["step 2 of 2: done"]
    nbformat.validate(nb)
