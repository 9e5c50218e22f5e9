"""bench/notebooks.py end to end on our kernel alone: a notebook made here, every cell run though one fails, each
cell classified, the report and the raw outcomes written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CELLS = [
    "val answer = 6 * 7",
    "println(notDeclaredAnywhere)",
    'DISPLAY(HTML("<b>$answer</b>"))',
]


def test_runner_records_each_cell_on_our_kernel(tmp_path: Path) -> None:
    notebook = tmp_path / "tiny.ipynb"
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": source} for source in CELLS]
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), "utf-8")
    work, out = tmp_path / "work", tmp_path / "report.md"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "notebooks.py"),
            str(notebook),
            "--kernels",
            "ours",
            "--cell-timeout",
            "120",
            "--work",
            str(work),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr

    (raw,) = work.glob("notebooks-*.json")
    (run,) = json.loads(raw.read_text("utf-8"))["runs"]
    assert run["kernel"] == "ours" and run["notes"] == []
    statuses = [(r["number"], r["status"]) for r in run["results"]]
    assert statuses == [(1, "ok"), (2, "error"), (3, "ok")]
    assert "notDeclaredAnywhere" in run["results"][1]["error"]

    report = out.read_text("utf-8")
    assert report in done.stdout
    assert "| tiny.ipynb | 3 | 1 | 2 | – | – | – | – |" in report  # 3 cells, 1 using the display API, 2 ok
    assert "## Cells that fail on ours (1)" in report
    assert "| tiny.ipynb | 2 | `println(notDeclaredAnywhere)` |" in report
    assert str(tmp_path) not in report  # the command shows the notebook's name, not where it lies
