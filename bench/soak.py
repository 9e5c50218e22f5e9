"""The long-session soak: one session, many cells, latency per 50-cell window and memory as the session grows.

    python bench/soak.py --cells 1000                 # ours (a kernel over jupyter_client) and the engine alone
    python bench/soak.py --kinds anchor --cells 300   # JetBrains' kernel, when time allows
    python bench/soak.py --kinds floor --baseline-jars DIR  # also the engine alone built elsewhere (an earlier commit)
    python bench/soak.py --kinds floor --nmt --cells 2000  # the engine alone's JVM memory by kind, from its NMT

The cells mix declarations and calls as an agent's long session does: ``val aK = K``, ``fun fK() = aK * 2``,
``fK()`` in turn, a compile error every 50th cell and a runtime exception every 50th. Each cell is timed from its
request to its reply (the engine alone: ``execute`` of the Python API in a child process), and its outcome is
checked: the error cells must fail, all others succeed. RSS of the kernel's process tree is read after cells 100,
500 and 1,000 (and every 100th). The report (section "Long sessions" of RESULTS.md) gives the median per 50-cell
window, the ratio of cells 951–1,000 to cells 51–100, the slowest non-error cell after cell 100, and the RSS
growth per declaring cell after cell 500 (and after cell 1,000 when more cells run). With ``--nmt`` the engine alone
runs with the JVM's native memory tracking and reports, at the same marks, the memory the JVM committed by kind
(heap, compiled code, class metadata, …): which of them the growth is.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import shlex
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import environment
from compatibility import ANCHOR, ERROR, OK, OURS, Cell
from completion import _prepare_archive as prepare_archive
from completion_report import replace_section
from environment import BENCH_DIR, REPO
from kernels import KERNEL_NAMES, find_our_kernelspec, prepare_kernelspecs
from measure import tree_usage
from notebooks import NotebookKernel

HEADING = "## Long sessions"
FLOOR = "floor"
#: The engine alone from the jars of --baseline-jars (a build of an earlier commit), run before the floor.
BASELINE = "floor-baseline"
KINDS = (OURS, FLOOR, ANCHOR)
WINDOW = 50
MB = 1e6
#: After these cells the RSS is reported (and after every 100th in the raw data).
RSS_MARKS = (100, 500, 1000)
#: The JVM option of --nmt, and a kind of memory in its summary: "-  Java Heap (reserved=…KB, committed=…KB)".
NMT_OPTION = "-XX:NativeMemoryTracking=summary"
_NMT_KIND = re.compile(r"^-\s+(.+?) \(reserved=\d+KB, committed=(\d+)KB", re.MULTILINE)
_NMT_TOTAL = re.compile(r"^Total: reserved=\d+KB, committed=(\d+)KB", re.MULTILINE)
#: Kinds of JVM memory whose change from cell 500 to the last mark is less than this are left out (MB).
NMT_SHOWN = 0.3


def _step(number: int) -> int | None:
    """Where cell ``number`` is in the declare-declare-call cycle (0, 1, 2), None for an error cell."""
    if number % 25 == 0:
        return None
    return (number - number // 25 + 2) % 3


def soak_cell(number: int) -> tuple[str, bool]:
    """Cell ``number`` (from 1) and whether it must fail; the error cells leave the cycle as it was."""
    step = _step(number)
    if step is None:
        return (f'val broken{number}: Int = "not a number"' if number % 50 == 0 else f'error("failure {number}")'), True
    k = (number - number // 25 + 2) // 3
    return (f"val a{k} = {k}", f"fun f{k}() = a{k} * 2", f"f{k}()")[step], False


def declares(number: int) -> bool:
    return _step(number) in (0, 1)


@dataclass
class Run:
    kind: str
    seconds: list[float] = field(default_factory=list)
    rss: dict[int, float] = field(default_factory=dict)  # after cell N, MB
    nmt: dict[int, dict[str, float]] = field(default_factory=dict)  # after cell N: MB committed by kind (--nmt)
    wrong: list[str] = field(default_factory=list)  # cells whose outcome was not the expected one

    def window(self, first: int) -> float | None:
        chunk = self.seconds[first - 1 : first - 1 + WINDOW]
        return statistics.median(chunk) if len(chunk) == WINDOW else None

    def growth_per_declaring_cell(self, after: int) -> float | None:
        last = max(self.rss, default=0)
        if after not in self.rss or last <= after:
            return None
        cells = _declaring(after, last)
        return (self.rss[last] - self.rss[after]) / cells if cells else None

    def slowest_after(self, warm: int) -> tuple[int, float] | None:
        ok = [(n, s) for n, s in enumerate(self.seconds, 1) if n > warm and not soak_cell(n)[1]]
        return max(ok, key=lambda item: item[1]) if ok else None


def run_kernel(kind: str, cells: int, args: argparse.Namespace, env: dict[str, str]) -> Run:
    run = Run(kind)
    log = args.work / "logs" / f"soak-{kind}.log"
    with NotebookKernel(KERNEL_NAMES[kind], args.work / "kernels", env, log, args.start_timeout) as kernel:
        kernel.run(Cell(0, "1 + 1"), args.cell_timeout)  # the start is not what this measures
        for number in range(1, cells + 1):
            source, fails = soak_cell(number)
            result = kernel.run(Cell(number, source), args.cell_timeout)
            run.seconds.append(result.seconds or 0.0)
            if result.status != (ERROR if fails else OK):
                run.wrong.append(f"cell {number} `{source}`: {result.status} {result.error or ''}".strip())
            if number % 100 == 0 and kernel.pid is not None:
                run.rss[number] = tree_usage(kernel.pid).rss_bytes / MB
            if number % 100 == 0:
                _progress(f"{kind}: {number} cells, last window median {run.window(number - WINDOW + 1)}")
    return run


def native_memory() -> dict[str, float]:
    """The JVM's committed memory by kind (MB), from its native memory tracking, asked through JPype."""
    import jpype

    management = jpype.JClass("java.lang.management.ManagementFactory")
    name = jpype.JClass("javax.management.ObjectName")("com.sun.management:type=DiagnosticCommand")
    arguments = jpype.JArray(jpype.JObject)([jpype.JArray(jpype.JString)(["summary"])])
    signature = jpype.JArray(jpype.JString)(["[Ljava.lang.String;"])
    text = str(management.getPlatformMBeanServer().invoke(name, "vmNativeMemory", arguments, signature))
    kinds = {m.group(1): int(m.group(2)) * 1024 / MB for m in _NMT_KIND.finditer(text)}
    if total := _NMT_TOTAL.search(text):
        kinds["Total"] = int(total.group(1)) * 1024 / MB
    return kinds


def run_engine_child(cells: int, nmt: bool) -> None:
    """The engine alone, in this process: prints one JSON line per cell, then the RSS marks."""
    import psutil
    from kotlin_llm_kernel import Error, ScriptSession, SessionOptions, start_jvm

    process = psutil.Process()
    start_jvm(jvm_options=[NMT_OPTION] if nmt else [])
    with ScriptSession(options=SessionOptions(echo=False)) as session:
        session.execute("1 + 1")
        for number in range(1, cells + 1):
            source = soak_cell(number)[0]
            began = time.monotonic()
            result = session.execute(source)
            seconds = time.monotonic() - began
            line: dict[str, Any] = {"cell": number, "seconds": seconds, "failed": isinstance(result, Error)}
            if number % 100 == 0:
                line["rss"] = process.memory_info().rss / MB
            if nmt and (number in RSS_MARKS or number % 500 == 0):
                line["nmt"] = native_memory()
            print(json.dumps(line), flush=True)


def run_engine(cells: int, args: argparse.Namespace, env: dict[str, str], kind: str = FLOOR) -> Run:
    run = Run(kind)
    command = [sys.executable, str(Path(__file__).resolve()), "--engine-child", str(cells)]
    command += ["--nmt"] if args.nmt else []
    # without the archive: a build of other jars would make one in the background while the cells run
    with subprocess.Popen(command, env=env | {"KOTLIN_LLM_CDS": "0"}, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None
        for text in child.stdout:
            line = json.loads(text)
            number = line["cell"]
            run.seconds.append(line["seconds"])
            if line["failed"] != soak_cell(number)[1]:
                run.wrong.append(f"cell {number} `{soak_cell(number)[0]}`: failed={line['failed']}")
            if "rss" in line:
                run.rss[number] = line["rss"]
            if "nmt" in line:
                run.nmt[number] = line["nmt"]
            if number % 100 == 0:
                _progress(f"{kind}: {number} cells")
        if child.wait(timeout=args.cell_timeout) != 0:
            run.wrong.append(f"the engine's process exited with {child.returncode}")
    return run


def render(runs: list[Run], command: str, context: list[tuple[str, str]]) -> str:
    lines = [HEADING, "", f"`{command}`", ""]
    lines += [f"- {name}: {value}" for name, value in context]
    longest = max(len(r.seconds) for r in runs)
    lines += ["", "Median cell latency per 50-cell window (s):", ""]
    lines += ["| cells | " + " | ".join(r.kind for r in runs) + " |", "|---|" + "---|" * len(runs)]
    for first in range(1, longest + 1, WINDOW):
        values = [r.window(first) for r in runs]
        shown = " | ".join("" if v is None else f"{v:.3f}" for v in values)
        lines.append(f"| {first}–{first + WINDOW - 1} | {shown} |")
    lines += ["", "| | " + " | ".join(r.kind for r in runs) + " |", "|---|" + "---|" * len(runs)]

    def row(name: str, values: list[str]) -> None:
        lines.append(f"| {name} | " + " | ".join(values) + " |")

    def ratio(r: Run, late: int) -> str:
        early, last = r.window(51), r.window(late)
        return f"{last / early:.2f}×" if early and last else ""

    row("cells 951–1,000 / cells 51–100", [ratio(r, 951) for r in runs])
    row("cells 251–300 / cells 51–100", [ratio(r, 251) for r in runs])
    slowest = [r.slowest_after(100) for r in runs]
    row("slowest non-error cell after 100", ["" if x is None else f"{x[1]:.3f} s (cell {x[0]})" for x in slowest])
    for mark in RSS_MARKS:
        row(f"RSS after cell {mark} (MB)", [f"{r.rss[mark]:.0f}" if mark in r.rss else "" for r in runs])
    growth = [r.growth_per_declaring_cell(500) for r in runs]
    row("RSS growth per declaring cell after 500 (MB)", ["" if g is None else f"{g:.3f}" for g in growth])
    if longest > 1000:
        later = [r.growth_per_declaring_cell(1000) for r in runs]
        row("RSS growth per declaring cell after 1,000 (MB)", ["" if g is None else f"{g:.3f}" for g in later])
    row("cells with a wrong outcome", [str(len(r.wrong)) for r in runs])
    for r in runs:
        lines += [f"- {r.kind}: {wrong}" for wrong in r.wrong[:5]]
    for r in runs:
        lines += _native_memory_table(r)
    return "\n".join(lines) + "\n"


def _native_memory_table(run: Run) -> list[str]:
    """The JVM's committed memory by kind at each mark, and its growth per declaring cell between marks (--nmt)."""
    marks = sorted(run.nmt)
    if len(marks) < 2:
        return []
    first, last = (500 if 500 in run.nmt else marks[0]), marks[-1]
    grown = [k for k in run.nmt[last] if k != "Total" and abs(_nmt(run, last, k) - _nmt(run, first, k)) >= NMT_SHOWN]
    spans = list(itertools.pairwise(marks))
    title = "memory the JVM committed (native memory tracking): MB after cell N, and MB per declaring cell"
    lines = ["", f"{run.kind}, {title}:", ""]
    header = [str(m) for m in marks] + [f"{a + 1}–{b}" for a, b in spans]
    lines += ["| kind | " + " | ".join(header) + " |", "|---|" + "---|" * len(header)]
    for kind in [*grown, "total"]:
        at = [f"{_nmt(run, m, kind):.1f}" for m in marks]
        per = [f"{(_nmt(run, b, kind) - _nmt(run, a, kind)) / max(1, _declaring(a, b)):.3f}" for a, b in spans]
        lines.append(f"| {kind} | " + " | ".join(at + per) + " |")
    return lines


def _declaring(after: int, last: int) -> int:
    """How many cells from ``after + 1`` to ``last`` declare something."""
    return sum(1 for n in range(after + 1, last + 1) if declares(n))


def _nmt(run: Run, mark: int, kind: str) -> float:
    """MB committed of ``kind`` after cell ``mark``; "total" is NMT's own sum of all kinds."""
    return run.nmt[mark].get("Total" if kind == "total" else kind, 0.0)


def _progress(message: str) -> None:
    print(f"[soak] {message}", file=sys.stderr, flush=True)


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, default=1000, help="cells of ours and the engine alone (default 1000)")
    parser.add_argument("--anchor-cells", type=int, default=300, help="cells of the anchor (default 300)")
    parser.add_argument("--kinds", default=f"{OURS},{FLOOR}", help=f"some of {','.join(KINDS)}, run in turn")
    parser.add_argument("--cell-timeout", type=float, default=120.0, help="seconds per cell (default 120)")
    parser.add_argument("--start-timeout", type=float, default=180.0, help="seconds to kernel_info (default 180)")
    parser.add_argument("--java-home", help="the JDK for all (default: JAVA_HOME, else java on PATH)")
    parser.add_argument("--anchor-venv", type=Path, default=BENCH_DIR / ".anchor-venv", help="the anchor's venv")
    parser.add_argument("--work", type=Path, default=BENCH_DIR / ".work", help="kernelspecs, logs, raw JSON")
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "RESULTS.md", help="the report's file")
    parser.add_argument("--baseline-jars", type=Path, help="engine jars to run the floor on first, as floor-baseline")
    parser.add_argument("--nmt", action="store_true", help="the engine alone with the JVM's native memory tracking")
    parser.add_argument("--engine-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if not args.kinds or set(args.kinds) - set(KINDS):
        parser.error(f"--kinds takes some of {', '.join(KINDS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    args = _parse(arguments)
    if args.engine_child is not None:
        run_engine_child(args.engine_child, args.nmt)
        return 0
    shown = ["DIR" if Path(a).is_absolute() else a for a in arguments]  # no machine path in the report
    command = shlex.join(["python", "bench/soak.py", *shown])
    revision, load_before, began = environment.git_revision(REPO), environment.load_average(), time.monotonic()
    env = environment.kernel_environment(args.java_home)
    anchor_python = args.anchor_venv / "bin" / "python"
    anchor_spec = args.anchor_venv / "share" / "jupyter" / "kernels" / "kotlin"
    if ANCHOR in args.kinds and not anchor_spec.is_dir():
        raise SystemExit(f"no anchor in {args.anchor_venv}: run bench/run.py once to install it")
    prepare_kernelspecs(
        args.work / "kernels",
        find_our_kernelspec() if OURS in args.kinds else None,
        anchor_spec if ANCHOR in args.kinds else None,
        anchor_python if ANCHOR in args.kinds else None,
    )
    notes: list[str] = []
    if OURS in args.kinds:
        prepare_archive(env, notes)
    runs = []
    for kind in args.kinds:
        _progress(f"{kind}: starting")
        if kind == FLOOR and args.baseline_jars:
            _progress(f"{BASELINE}: starting")
            baseline_env = env | {"KOTLIN_LLM_ENGINE_JARS": str(args.baseline_jars.resolve())}
            runs.append(run_engine(args.cells, args, baseline_env, BASELINE))
        if kind == FLOOR:
            runs.append(run_engine(args.cells, args, env))
        else:
            runs.append(run_kernel(kind, args.anchor_cells if kind == ANCHOR else args.cells, args, env))
    context = [
        ("date", environment.now_utc()),
        ("repository", revision),
        ("JDK", environment.jdk(env)),
        ("load average before / after", f"{load_before} / {environment.load_average()}"),
        ("wall time", f"{(time.monotonic() - began) / 60:.1f} min"),
    ]
    context += [("note", note) for note in notes]
    text = render(runs, command, context)
    print(text)
    previous = args.results.read_text(encoding="utf-8") if args.results.exists() else ""
    args.results.write_text(replace_section(previous, HEADING, text), encoding="utf-8")
    raw = args.work / f"soak-{time.strftime('%Y%m%d-%H%M%S')}.json"
    raw.write_text(json.dumps({"command": command, "runs": [r.__dict__ for r in runs]}, indent=1), "utf-8")
    _progress(f"wrote the {HEADING[3:]} section of {args.results} and {raw}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
