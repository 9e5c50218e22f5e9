"""What a hint adds to a failing cell (see bench/README.md): the time of cells whose errors get an import, a name
or a dependency hint, against a failing cell that gets none, first in a fresh process and warm.

``python bench/hints.py [--starts 3] [--repeats 7]``

Each start is a fresh process running a Python API session (the engine alone: no kernel, so nothing but the
compilation and its hints is timed): ``1 + 1``, then each cell below once (the first import hint reads the names of
the JDK and the standard library), then all of them ``--repeats`` times in turn. The report gives per cell the
median over the starts of its first run and of its warm runs, and what it adds to the cell without a hint.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time

import environment
from environment import REPO
from measure import median

#: (what the row says, the cell); the first gets no hint, which the others are measured against
CELLS = [
    ('no hint: `val x: Int = "a"`', 'val x: Int = "a"'),
    ("import: `LocalDate.of(…)`", "val d = LocalDate.of(2024, 1, 31)"),
    ("import of an extension: `Path(…).readText()`", 'import kotlin.io.path.Path\nPath("a").readText()'),
    ('name meant: `printn("a")`', 'printn("a")'),
    ("name meant on a receiver: `xs.fitler { … }`", "val xs = listOf(1, 2)\nxs.fitler { it > 1 }"),
    ("dependency: `import io.ktor.client.*`", "import io.ktor.client.*"),
]


def _one(repeats: int) -> dict[str, list[float]]:
    """In this process: the seconds of each cell's first run, then of its warm runs."""
    from kotlin_llm_kernel import Error, ScriptSession, SessionOptions

    runs: dict[str, list[float]] = {label: [] for label, _ in CELLS}
    with ScriptSession(options=SessionOptions(echo=False)) as session:
        session.execute("1 + 1")
        for _ in range(repeats + 1):
            for label, code in CELLS:
                started = time.perf_counter()
                result = session.execute(code)
                runs[label].append(time.perf_counter() - started)
                if not isinstance(result, Error):
                    raise RuntimeError(f"{label} did not fail")
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3, help="fresh processes (default 3)")
    parser.add_argument("--repeats", type=int, default=7, help="warm runs of each cell per start (default 7)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(_one(args.repeats)))
        return 0
    command = shlex.join(["python", "bench/hints.py", *(argv if argv is not None else sys.argv[1:])])
    load_before = environment.load_average()
    starts = []
    for index in range(1, args.starts + 1):
        one = [sys.executable, __file__, "--one", "--repeats", str(args.repeats)]
        out = subprocess.run(one, check=True, capture_output=True, text=True).stdout
        starts.append(json.loads(out.strip().splitlines()[-1]))
        print(f"[bench] start {index} done", file=sys.stderr, flush=True)
    baseline_label = CELLS[0][0]

    def first(label: str) -> float:
        return median([start[label][0] for start in starts])

    def warm(label: str) -> float:
        return median([median(start[label][1:]) for start in starts])

    lines = [
        f"`{command}`, {environment.now_utc()}, repository {environment.git_revision(REPO)}, "
        f"load average {load_before} before, {environment.load_average()} after; {args.starts} fresh processes.",
        "",
        "| failing cell | first, s | adds, s | warm, s | adds, s |",
        "|---|---|---|---|---|",
    ]
    for label, _ in CELLS:
        first_adds = first(label) - first(baseline_label)
        warm_adds = warm(label) - warm(baseline_label)
        lines.append(f"| {label} | {first(label):.3f} | {first_adds:+.3f} | {warm(label):.3f} | {warm_adds:+.3f} |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
