"""The pure part of the notebook compatibility runner (bench/compatibility.py): which cells use a kernel's own API,
the error line, reading a notebook, and the table and lists of the report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from compatibility import (
    ANCHOR,
    ERROR,
    OK,
    OURS,
    TIMEOUT,
    Cell,
    CellResult,
    Comparison,
    NotebookRun,
    error_line,
    first_line,
    kernel_features,
    read_cells,
    render,
    table,
)


@pytest.mark.parametrize(
    "source",
    [
        "val x = 1 + 1",
        "class Derived(x: Int)\n    : Base(x)",
        "class A : B()",
        "val image = BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB)",
        "screen.display(42)",
        "val html = myHTML(text)",
        'val s = "50% off"\n// 100%',
        "x % 2 == 0",
    ],
)
def test_ordinary_kotlin_uses_no_kernel_api(source: str) -> None:
    assert kernel_features(source) == ()


@pytest.mark.parametrize(
    ("source", "features"),
    [
        ("%use dataframe\nval df = 1", ("%use",)),
        (":help", (":help",)),
        ("%trackClasspath on", ("%trackClasspath",)),
        ('DISPLAY(HTML("<b>x</b>"))', ("DISPLAY(", "HTML(")),
        ('MIME("text/markdown" to "*x*")', ("MIME(",)),
        ('Image("https://example.org/a.png")', ("Image(",)),
        ("display(42)\nval y = 2", ("display(",)),
        ("USE {\n    render<Int> { it * 2 }\n}", ("USE {", "render<")),
        ("notebook.clearOutput()", ("notebook.",)),
        ("clearOutput()", ("clearOutput(",)),
        ('@file:DependsOn("a:b:1")', ("@file:DependsOn",)),
        ("import org.jetbrains.kotlinx.jupyter.api.*", ("org.jetbrains.kotlinx.jupyter",)),
    ],
)
def test_magics_and_display_api_are_named(source: str, features: tuple[str, ...]) -> None:
    assert kernel_features(source) == features


def test_magics_come_first_then_names_once_each_in_order_of_appearance() -> None:
    assert kernel_features('HTML("a")\nDISPLAY(HTML("b"))\n%use x') == ("%use", "HTML(", "DISPLAY(")


def test_error_line_is_ename_and_the_first_line_of_evalue() -> None:
    assert error_line("CompilationError", "\nUnresolved reference 'mul'.\nhint", ["ignored"]) == (
        "CompilationError: Unresolved reference 'mul'."
    )


def test_error_line_without_names_is_the_traceback_first_line_without_colours() -> None:
    assert error_line(None, "", ["", "\x1b[0;31mjava.lang.IllegalStateException: boom\x1b[0m", "at x"]) == (
        "java.lang.IllegalStateException: boom"
    )
    assert error_line("", None, None) == "(no error text)"


def test_error_line_is_cut() -> None:
    line = error_line("E", "x" * 500, None)
    assert len(line) == 200 and line.endswith("…")


def test_first_line_skips_blank_lines() -> None:
    assert first_line("\n   \n  fun f() = 1  \nfun g() = 2") == "fun f() = 1"


def test_read_cells_numbers_code_cells_and_skips_empty_ones(tmp_path: Path) -> None:
    notebook = tmp_path / "n.ipynb"
    cells = [
        {"cell_type": "markdown", "source": ["# Title"]},
        {"cell_type": "code", "source": ["val a = 1\n", "val b = 2"]},
        {"cell_type": "code", "source": "   \n"},
        {"cell_type": "code", "source": "a + b"},
    ]
    notebook.write_text(json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    assert read_cells(notebook) == [Cell(1, "val a = 1\nval b = 2"), Cell(3, "a + b")]


def _comparison() -> Comparison:
    cells = {
        "a.ipynb": [
            Cell(1, "fun mul(a: Int, b: Int) = a * b"),
            Cell(2, "fun f(a: Int) = mul(a, 2)"),
            Cell(3, 'DISPLAY(HTML("<b>x</b>"))'),
            Cell(4, "suspend fun s() = 1\nval v = s()"),
            Cell(5, "error(1)"),
            Cell(6, "val ok = 1"),
        ],
        "b.ipynb": [Cell(1, "sqrt(16.0)"), Cell(2, "1")],
    }
    runs = [
        NotebookRun(
            "a.ipynb",
            OURS,
            [
                CellResult(1, OK),
                CellResult(2, ERROR, "CompilationError: Unresolved reference 'mul'."),
                CellResult(3, ERROR, "CompilationError: Unresolved reference 'DISPLAY'."),
                CellResult(4, TIMEOUT, "no reply within 5 s (interrupted)"),
                CellResult(5, ERROR, "IllegalStateException: 1"),
                CellResult(6, OK),
            ],
        ),
        NotebookRun(
            "a.ipynb",
            ANCHOR,
            [
                CellResult(1, OK),
                CellResult(2, OK),
                CellResult(3, OK),
                CellResult(4, OK),
                CellResult(5, ERROR, "IllegalStateException: 1"),
                CellResult(6, ERROR, "ReplException: boom"),
            ],
            ["cell 6 timed out: restarted"],
        ),
        NotebookRun(
            "b.ipynb", OURS, [CellResult(1, ERROR, "CompilationError: Unresolved reference 'sqrt'."), CellResult(2, OK)]
        ),
        NotebookRun("b.ipynb", ANCHOR, [CellResult(1, OK), CellResult(2, OK)]),
    ]
    return Comparison(cells, runs)


def test_rows_count_each_notebook_and_the_total() -> None:
    comparison = _comparison()
    a, b = comparison.rows()
    assert (a.cells, a.kernel_api, a.ok_here, a.ok_there, a.ok_both, a.only_there, a.only_here) == (6, 1, 2, 4, 1, 3, 1)
    assert (b.cells, b.kernel_api, b.ok_here, b.ok_there, b.ok_both, b.only_there, b.only_here) == (2, 0, 1, 2, 1, 1, 0)
    total = comparison.total()
    assert (total.cells, total.ok_here, total.ok_there, total.ok_both, total.only_there, total.only_here) == (
        8,
        3,
        6,
        2,
        4,
        1,
    )


def test_gaps_split_ordinary_kotlin_from_cells_using_the_display_api() -> None:
    comparison = _comparison()
    ordinary = comparison.gaps(kernel_api=False)
    assert [(g.notebook, g.cell.number, g.status) for g in ordinary] == [
        ("a.ipynb", 2, ERROR),
        ("a.ipynb", 4, TIMEOUT),
        ("b.ipynb", 1, ERROR),
    ]
    assert ordinary[0].error == "CompilationError: Unresolved reference 'mul'."
    assert [(g.notebook, g.cell.number) for g in comparison.gaps(kernel_api=True)] == [("a.ipynb", 3)]
    assert [(n, c.number, e) for n, c, e in comparison.only_here()] == [("a.ipynb", 6, "ReplException: boom")]


def test_a_kernel_not_run_counts_nothing_and_leaves_no_gaps() -> None:
    full = _comparison()
    comparison = Comparison(full.cells, [r for r in full.runs if r.kernel == OURS])
    row = comparison.rows()[0]
    assert (row.ok_here, row.ok_there, row.ok_both, row.only_there, row.only_here) == (2, None, None, None, None)
    assert comparison.gaps(kernel_api=False) == [] and comparison.only_here() == []
    assert table(comparison)[2] == "| a.ipynb | 6 | 1 | 2 | – | – | – | – |"
    text = render(comparison, "python bench/notebooks.py a.ipynb b.ipynb --kernels ours", [])
    assert "Not compared: only ours ran." in text and "Ordinary Kotlin" not in text
    assert "## Cells that fail on ours (5)" in text
    assert "| a.ipynb | 4 | `suspend fun s() = 1` | `timeout: no reply within 5 s (interrupted)` |" in text


def test_report_has_the_table_the_goal_list_and_the_notes() -> None:
    text = render(_comparison(), "python bench/notebooks.py a.ipynb b.ipynb", [("date", "today")])
    assert "| a.ipynb | 6 | 1 | 2 | 4 | 1 | 3 | 1 |" in text
    assert "| **all** | 8 | 1 | 3 | 6 | 2 | 4 | 1 |" in text
    assert "## Ordinary Kotlin that succeeds there and fails here (3)" in text
    assert "| a.ipynb | 2 | `fun f(a: Int) = mul(a, 2)` | `CompilationError: Unresolved reference 'mul'.` |" in text
    assert "| a.ipynb | 4 | `suspend fun s() = 1` | `timeout: no reply within 5 s (interrupted)` |" in text
    assert "## Cells with magics or the display API that succeed there and fail here (1)" in text
    assert "`DISPLAY(`, `HTML(`" in text
    assert "## Cells that succeed here and fail there (1)" in text
    assert "- a.ipynb, anchor: cell 6 timed out: restarted" in text


def test_runs_survive_json() -> None:
    run = _comparison().runs[1]
    assert NotebookRun.from_json(json.loads(json.dumps(run.to_json()))) == run
