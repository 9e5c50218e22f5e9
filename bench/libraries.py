"""`%use dataframe`, the first DataFrame table and the first lets-plot figure of a session, and what DataFrame's
column accessors add to a cell, cell by cell (see bench/README.md).

``python bench/libraries.py [--starts 3] [--out FILE]``

Each start is a fresh ``kotlin-llm`` kernel (as installed in this environment) resolving from the libraries that
the setup step fetched (``tests/libraries.py``, served as a ``file:`` repository, into a new local repository), so
it needs no network. It runs the cells below in order, each timed from its ``execute_request`` to its
``execute_reply``; the report gives per cell the median [min–max] over the starts (markdown, to stdout and
``--out``).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from pathlib import Path

import environment
from environment import REPO
from kernels import ready_kernel
from measure import median

sys.path.insert(0, str(REPO / "tests"))
from libraries import DATAFRAME, LETS_PLOT, library_kernel_arguments  # the tests' list of libraries


def _version(coordinates: str) -> str:
    return coordinates.rsplit(":", 1)[1]


#: (what the row says, the cell)
CELLS = [
    ("`1 + 1` (the first cell)", "1 + 1"),
    # as a DataFrame notebook opens: resolved from the artifacts on this machine, with the libraries' default imports
    (f"`%use dataframe({_version(DATAFRAME)})`", f"%use dataframe({_version(DATAFRAME)})"),
    (f"`%use lets-plot({_version(LETS_PLOT)})`", f"%use lets-plot({_version(LETS_PLOT)})"),
    (
        "`val df = dataFrameOf(…)` (no output)",
        'val df = dataFrameOf("name", "age")("Alice", 15, "Bob", 20, "Charlie", 35)',
    ),
    ("**first table**: `df`", "df"),
    ("table again: `df`", "df"),
    # the column accessors: a frame held by no property has none, the same frame's cell as a property gets them
    (
        "`val n = dataFrameOf(…).rowsCount()` (a frame, no accessors)",
        'val n = dataFrameOf("city", "size")("Rome", 3, "Oslo", 1).rowsCount()',
    ),
    (
        "`val cities = dataFrameOf(…)` (**a new schema's accessors**)",
        'val cities = dataFrameOf("city", "size")("Rome", 3, "Oslo", 1)',
    ),
    (
        "`val more = dataFrameOf(…)` (the same schema: its marker reused)",
        'val more = dataFrameOf("city", "size")("Paris", 2)',
    ),
    ("`cities.filter { size > 1 }.city.toList()` (accessors used)", "cities.filter { size > 1 }.city.toList()"),
    ("1000-row table (20 shown)", '(1..1000).toList().toDataFrame { "n" from { it }; "square" from { it * it } }'),
    (
        "`val p = letsPlot(…) + geomPoint` (no output)",
        'val p = letsPlot(mapOf("x" to (1..50).toList(), "y" to (1..50).map { it % 7 }))'
        ' + geomPoint { x = "x"; y = "y" }',
    ),
    ("**first figure**: `p`", "p"),
    ("figure again: `p`", "p"),
    ("`1 + 1` (a warm plain cell)", "1 + 1"),
]
START_TIMEOUT = 180.0
CELL_TIMEOUT = 300.0


def _start(index: int, env: dict[str, str], work: Path) -> list[float]:
    """One fresh kernel: the seconds of each cell of :data:`CELLS`."""
    local = work / f"local-repo-{index}"
    with ready_kernel(env, library_kernel_arguments(local), START_TIMEOUT) as executor:
        seconds = []
        for label, code in CELLS:
            outcome = executor.execute(code, CELL_TIMEOUT)
            if outcome.status != "ok":
                raise RuntimeError(f"cell {label} failed: {(outcome.traceback or ['?'])[0]}")
            seconds.append(outcome.seconds)
        return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3, help="fresh kernels (default 3)")
    parser.add_argument("--out", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "bench/libraries.py", *(argv if argv is not None else sys.argv[1:])])
    env = environment.kernel_environment(None)
    load_before = environment.load_average()
    runs: list[list[float]] = []
    with tempfile.TemporaryDirectory(prefix="kotlin-llm-bench-libraries-") as work:
        for index in range(1, args.starts + 1):
            runs.append(_start(index, env, Path(work)))
            print(f"[bench] start {index}: " + ", ".join(f"{s:.2f}" for s in runs[-1]), file=sys.stderr, flush=True)
    lines = [
        f"`{command}`, {environment.now_utc()}, repository {environment.git_revision(REPO)}, "
        f"load average {load_before} before, {environment.load_average()} after; {args.starts} fresh kernels.",
        "",
        "| cell | s, median [min–max] |",
        "|---|---|",
    ]
    for column, (label, _) in enumerate(CELLS):
        values = [run[column] for run in runs]
        lines.append(f"| {label} | **{median(values):.3f}** [{min(values):.3f}–{max(values):.3f}] |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
