"""The pure part of JetBrains' samples runner (bench/jetbrains_samples.py): which cells nbclient runs, a cell's
result from its execute_reply, the per-notebook summary and the table of cells ok on one kernel only."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from jetbrains_samples import (
    ERROR,
    OK,
    TIMEOUT,
    TIMEOUT_ENAME,
    CellResult,
    classify,
    code_cells,
    compare,
    first_line,
    load,
    summary,
)


def test_first_line_skips_blank_lines_strips_and_cuts() -> None:
    assert first_line("\n   \n  val x = 1  \nval y = 2") == "val x = 1"
    assert first_line("abcdef", limit=4) == "abc…"
    assert first_line("") == ""
    assert first_line(None) == ""


def test_code_cells_are_the_non_blank_code_cells_with_their_index_among_all_cells() -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": "# title"},
            {"cell_type": "code", "source": ["val a = 1\n", "a"]},
            {"cell_type": "code", "source": "  \n"},
            {"cell_type": "raw", "source": "x"},
            {"cell_type": "code", "source": "a + 1"},
        ]
    }
    assert code_cells(notebook) == [(1, "val a = 1\na"), (4, "a + 1")]


def test_an_ok_reply_is_ok() -> None:
    result = classify("outputs", 4, '\nMIME(MimeTypes.HTML to "x")\n', {"status": "ok", "execution_count": 3})
    assert result == CellResult("outputs", 4, OK, None, None, 'MIME(MimeTypes.HTML to "x")')


def test_an_error_reply_keeps_its_name_and_the_first_line_of_its_value() -> None:
    reply = {"status": "error", "ename": "CompilationException", "evalue": "\nUnresolved reference 'USE'.\nmore"}
    assert classify("api-guide", 15, "USE {\n}", reply) == CellResult(
        "api-guide", 15, ERROR, "CompilationException", "Unresolved reference 'USE'.", "USE {"
    )


def test_a_timed_out_cell_is_a_timeout_and_a_missing_reply_an_error() -> None:
    reply = {"status": "error", "ename": TIMEOUT_ENAME, "evalue": "no reply within 120 s (interrupted)"}
    assert classify("api-guide", 37, "while (true) {}", reply).status == TIMEOUT
    assert classify("Comms", 2, "x", None) == CellResult("Comms", 2, ERROR, "NoReply", "the kernel gave no reply", "x")
    assert classify("Comms", 3, "x", {"status": "error"}).ename == "Error"


def _runs() -> tuple[list[CellResult], list[CellResult]]:
    jb = [
        CellResult("outputs", 1, OK, None, None, "1 + 1"),
        CellResult("outputs", 4, OK, None, None, "MimeTypes.HTML"),
        CellResult("Comms", 0, ERROR, "E", "boom", "x|y"),
    ]
    ours = [
        CellResult("outputs", 1, OK, None, None, "1 + 1"),
        CellResult("outputs", 4, ERROR, "CompilationException", "Unresolved reference 'MimeTypes'.", "MimeTypes.HTML"),
        CellResult("Comms", 0, OK, None, None, "x|y"),
    ]
    return jb, ours


def test_summary_counts_ok_cells_per_notebook_in_run_order() -> None:
    jb, _ = _runs()
    assert summary(jb, "kotlin") == "\n".join(
        [
            "### kotlin",
            "",
            "| notebook | ok / cells |",
            "|---|---|",
            "| outputs | 2 / 2 |",
            "| Comms | 0 / 1 |",
            "| **total** | **2 / 3** |",
        ]
    )


def test_compare_lists_the_cells_ok_on_one_kernel_only_with_the_other_kernels_error() -> None:
    jb, ours = _runs()
    assert compare(jb, ours, "kotlin", "kotlin-llm") == "\n".join(
        [
            "| notebook | kotlin | kotlin-llm | cells |",
            "|---|---|---|---|",
            "| outputs | 2 | 1 | 2 |",
            "| Comms | 0 | 1 | 1 |",
            "| **total** | **2** | **2** | **3** |",
            "",
            "#### Ok on kotlin only (1)",
            "",
            "| notebook | cell | code (first line) | on kotlin-llm |",
            "|---|---|---|---|",
            "| outputs | 4 | `MimeTypes.HTML` | `CompilationException: Unresolved reference 'MimeTypes'.` |",
            "",
            "#### Ok on kotlin-llm only (1)",
            "",
            "| notebook | cell | code (first line) | on kotlin |",
            "|---|---|---|---|",
            "| Comms | 0 | `x\\|y` | `E: boom` |",
        ]
    )


def test_compare_counts_a_cell_missing_from_one_run_as_not_run() -> None:
    jb, ours = _runs()
    text = compare(jb, ours[:1], "kotlin", "kotlin-llm")
    assert "| outputs | 4 | `MimeTypes.HTML` | `not run` |" in text.splitlines()
    assert "#### Ok on kotlin-llm only (0)" in text.splitlines()


def test_load_reads_what_a_run_writes(tmp_path: Path) -> None:
    jb, _ = _runs()
    path = tmp_path / "run.json"
    cells = [vars(r) for r in jb]
    path.write_text(json.dumps({"kernel": "kotlin", "kernel_info": {}, "cells": cells}), encoding="utf-8")
    assert load(path) == ("kotlin", jb)
