"""RSS of our kernel around two faults: the heap running out, and the stack overflowing (see bench/README.md).

``python bench/faults.py [--starts N] [--java-home DIR] [--out FILE]``

Each start is a fresh kernel that runs ``val keep = 42``, then each fault row in turn; RSS (MB = 10^6 bytes) of the
kernel's process tree is read before the fault, right after its reply, after the release cell and the next cell,
and after the kernel then idled ``--idle`` seconds (the JVM frees an ended thread's arenas within 5 s). The report
(medians over the starts, and the ratios to the RSS before the fault) goes to stdout and to ``--out``.
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import environment
from compatibility import OK, Cell
from environment import BENCH_DIR, REPO
from kernels import OURS_KERNEL, find_our_kernelspec, prepare_kernelspecs
from measure import tree_usage
from notebooks import NotebookKernel

MB = 1_000_000


@dataclass(frozen=True)
class Fault:
    name: str
    fault: str  # the cell that fails
    release: str  # the cell that releases what the fault kept ("" when nothing is kept)
    next_cell: str  # a cell that must work afterwards


FAULTS = (
    Fault(
        "OutOfMemoryError",
        "val big = ArrayList<LongArray>(); while (true) big.add(LongArray(10_000_000))",
        "big.clear()",
        "LongArray(10_000_000).size",
    ),
    Fault("StackOverflowError", "fun f(n: Int): Int = f(n + 1) + 1; f(0)", "", "keep"),
)
POINTS = ("before", "after the fault", "after release + next cell", "after idling")


def _progress(message: str) -> None:
    print(f"[faults {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _rss(kernel: NotebookKernel) -> float:
    pid = kernel.pid
    if pid is None:
        raise RuntimeError("the kernel is not running")
    return tree_usage(pid).rss_bytes / MB


def _run(kernel: NotebookKernel, source: str, timeout: float, expect_ok: bool = True) -> None:
    result = kernel.run(Cell(0, source), timeout)
    if (result.status == OK) != expect_ok:
        raise RuntimeError(f"{source!r}: {result.status} {result.error or ''}")


def run_start(args: argparse.Namespace, kernels_dir: Path, env: dict[str, str], index: int) -> dict[str, list[float]]:
    """One fresh kernel through every fault: RSS at each point of :data:`POINTS`, per fault."""
    log = args.work / "logs" / f"faults-{index}.log"
    figures: dict[str, list[float]] = {}
    with NotebookKernel(OURS_KERNEL, kernels_dir, env, log, args.start_timeout) as kernel:
        _run(kernel, "val keep = 42", args.cell_timeout)
        for fault in FAULTS:
            before = _rss(kernel)
            _run(kernel, fault.fault, args.cell_timeout, expect_ok=False)
            after_fault = _rss(kernel)
            if fault.release:
                _run(kernel, fault.release, args.cell_timeout)
            _run(kernel, fault.next_cell, args.cell_timeout)
            after_next = _rss(kernel)
            time.sleep(args.idle)
            figures[fault.name] = [before, after_fault, after_next, _rss(kernel)]
            _progress(f"start {index}, {fault.name}: " + ", ".join(f"{v:.0f}" for v in figures[fault.name]) + " MB")
        _run(kernel, "keep", args.cell_timeout)
    return figures


def render(starts: list[dict[str, list[float]]], command: str, context: list[tuple[str, str]]) -> str:
    lines = [f"`{command}`", "", *(f"- {key}: {value}" for key, value in context), ""]
    lines.append("| fault | " + " | ".join(f"RSS {p}, MB" for p in POINTS) + " | ratios to before |")
    lines.append("|---|" + "---:|" * len(POINTS) + "---|")
    for fault in FAULTS:
        medians = [statistics.median(s[fault.name][i] for s in starts) for i in range(len(POINTS))]
        cells = " | ".join(
            f"{m:.0f} [{min(s[fault.name][i] for s in starts):.0f}–{max(s[fault.name][i] for s in starts):.0f}]"
            for i, m in enumerate(medians)
        )
        ratios = " / ".join(f"{m / medians[0]:.2f}×" for m in medians[1:])
        lines.append(f"| {fault.name} | {cells} | {ratios} |")
    return "\n".join(lines) + "\n"


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3, help="fresh kernels (default 3)")
    parser.add_argument("--idle", type=float, default=8.0, help="seconds idle before the last sample (default 8)")
    parser.add_argument("--cell-timeout", type=float, default=300.0, help="seconds per cell (default 300)")
    parser.add_argument("--start-timeout", type=float, default=180.0, help="seconds to kernel_info (default 180)")
    parser.add_argument("--java-home", help="the JDK (default: JAVA_HOME, else java on PATH)")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    parser.add_argument("--work", type=Path, default=BENCH_DIR / ".work", help="kernelspecs and logs")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    args = _parse(arguments)
    command = shlex.join(["python", "bench/faults.py", *arguments])
    revision = environment.git_revision(REPO)
    env = environment.kernel_environment(args.java_home)
    ours = find_our_kernelspec()
    if ours is None:
        raise SystemExit(f"no `{OURS_KERNEL}` kernelspec in this environment (`jupyter kernelspec list`)")
    kernels_dir = args.work / "kernels"
    prepare_kernelspecs(kernels_dir, ours, None, None)
    began = time.monotonic()
    starts = [run_start(args, kernels_dir, env, index) for index in range(1, args.starts + 1)]
    context = [
        ("date", environment.now_utc()),
        ("repository", revision),
        ("JDK", environment.jdk(env)),
        ("load average after", environment.load_average()),
        ("wall time", f"{(time.monotonic() - began) / 60:.1f} min"),
    ]
    text = render(starts, command, context)
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
