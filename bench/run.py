"""The benchmark of issue 5: ``python bench/run.py --starts 3 --cells 30`` (see bench/README.md).

In one invocation: installs the anchor (PyPI ``kotlin-jupyter-kernel``) into ``bench/.anchor-venv`` if needed,
starts fresh kernels of ours (``kotlin-llm``, as installed in this environment), of the anchor and of the engine
alone (the floor) in turn, N times each, runs the same cells in each, and writes the comparison to stdout and to
``bench/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

try:
    import psutil  # noqa: F401 - every module here needs it
except ImportError:
    sys.exit("bench/run.py needs psutil in this environment: pip install psutil")

import environment
from anchor import VERSION as ANCHOR_VERSION
from anchor import AnchorInstall, ensure_anchor
from environment import BENCH_DIR, REPO
from floor import run_floor_start
from kernels import (
    ANCHOR_KERNEL,
    OURS_KERNEL,
    Timeouts,
    Variant,
    find_our_kernelspec,
    prepare_kernelspecs,
    prepare_variant,
    run_kernel_start,
)
from measure import StartRecord, busy_cpu_seconds
from report import KINDS, Comparison, render
from workload import Workload


def _progress(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3, help="fresh starts of each kind (default 3)")
    parser.add_argument(
        "--cells", type=int, default=30, help="warm cells of each kind: 1 + 1, function, class (default 30)"
    )
    parser.add_argument(
        "--total", type=int, default=200, help="cells per start in all, the rest being `1 + 1` (default 200)"
    )
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help="what to run, in this order each round (default ours,anchor,floor)"
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=ITEM[;ITEM…]",
        help="also run ours as kind `ours-NAME` with ITEMs changed: `VAR=value` sets an environment variable of the "
        "kernel, `--KotlinKernel.x=…` adds a kernel argument (e.g. no-cds=KOTLIN_LLM_CDS=0); repeatable",
    )
    parser.add_argument("--java-home", help="the JDK for all three (default: JAVA_HOME, else java on PATH)")
    parser.add_argument(
        "--anchor-version",
        default=ANCHOR_VERSION,
        help=f"PyPI version of kotlin-jupyter-kernel (default {ANCHOR_VERSION})",
    )
    parser.add_argument(
        "--anchor-venv",
        type=Path,
        default=BENCH_DIR / ".anchor-venv",
        help="venv for the anchor (default bench/.anchor-venv)",
    )
    parser.add_argument(
        "--work", type=Path, default=BENCH_DIR / ".work", help="kernelspecs, logs and raw JSON (default bench/.work)"
    )
    parser.add_argument(
        "--results", type=Path, default=BENCH_DIR / "RESULTS.md", help="report file (default bench/RESULTS.md)"
    )
    parser.add_argument(
        "--start-timeout", type=float, default=120.0, help="seconds to kernel_info / first sign of life (default 120)"
    )
    parser.add_argument("--cell-timeout", type=float, default=300.0, help="seconds per cell (default 300)")
    parser.add_argument(
        "--wait-for-ours",
        type=float,
        default=0.0,
        help="minutes to wait for the kotlin-llm kernelspec to appear (default 0)",
    )
    args = parser.parse_args(argv)
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = set(args.kinds) - set(KINDS)
    if unknown or not args.kinds:
        parser.error(f"--kinds takes some of {', '.join(KINDS)}")
    try:
        args.variants = [Variant.parse(text) for text in args.variant]
    except ValueError as error:
        parser.error(str(error))
    if args.variants and "ours" in args.kinds:  # each variant runs right after ours, in every round
        at = args.kinds.index("ours") + 1
        args.kinds[at:at] = [variant.kind for variant in args.variants]
    if args.starts < 1:
        parser.error("--starts must be at least 1")
    return args


def _our_kernelspec(wait_minutes: float) -> Path | None:
    deadline = time.monotonic() + wait_minutes * 60
    while (found := find_our_kernelspec()) is None and time.monotonic() < deadline:
        _progress(f"no {OURS_KERNEL} kernelspec yet; checking again in 60 s")
        time.sleep(min(60.0, max(0.0, deadline - time.monotonic())))
    return found


def _describe(record: StartRecord) -> str:
    def show(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f} s"

    expr = [c.seconds for c in record.cells if c.phase == "warm_expr" and c.seconds is not None]
    warm = f"{sorted(expr)[len(expr) // 2]:.3f} s" if expr else "–"
    text = f"kernel_info {show(record.kernel_info_s)}, first result {show(record.first_result_s)}, warm 1+1 ~{warm}"
    return text + (f"; FAILED: {record.failure}" if record.failure else "")


def _setup(args: argparse.Namespace, notes: list[str]) -> tuple[AnchorInstall | None, Path | None]:
    """Installs the anchor if needed, finds our kernelspec, and copies both into ``<work>/kernels``."""
    anchor: AnchorInstall | None = None
    if "anchor" in args.kinds:
        _progress(f"anchor: ensuring kotlin-jupyter-kernel {args.anchor_version} in its venv")
        try:
            anchor = ensure_anchor(args.anchor_venv, args.anchor_version)
            if anchor.installed_seconds is not None:
                _progress(f"anchor installed in {anchor.installed_seconds:.0f} s")
        except Exception as error:  # noqa: BLE001 - reported; the other kinds still run
            notes.append(f"The anchor could not be installed, so it was not run: {error}")
            _progress(notes[-1])
    ours = _our_kernelspec(args.wait_for_ours) if "ours" in args.kinds else None
    if "ours" in args.kinds and ours is None:
        notes.append(f"No `{OURS_KERNEL}` kernelspec in this environment (`jupyter kernelspec list`): ours not run.")
        _progress(notes[-1])
    prepare_kernelspecs(
        args.work / "kernels", ours, anchor.kernelspec if anchor else None, anchor.python if anchor else None
    )
    if ours is not None:
        for variant in args.variants:
            prepare_variant(args.work / "kernels", variant)
    return anchor, ours


def _prepare_archive(env: dict[str, str], notes: list[str]) -> None:
    """Makes our class-data sharing archive before the starts (as after a first start), so none is timed while
    its background helper runs."""
    _progress("ours: making the class-data sharing archive (python -m kotlin_llm_kernel.cds)")
    done = subprocess.run(
        [sys.executable, "-m", "kotlin_llm_kernel.cds"], env=env, capture_output=True, text=True, timeout=1800
    )
    if done.returncode != 0:
        notes.append(f"The class-data sharing archive could not be made: {done.stderr.strip()[-500:]}")
        _progress(notes[-1])


def _record_contention(record: StartRecord, busy: float, elapsed: float) -> None:
    """How many cores, on average, other processes kept busy while this start ran (its own CPU subtracted)."""
    own = record.samples[-1].cpu_seconds if record.samples else 0.0
    record.info["others_cores"] = f"{max(0.0, busy - own) / elapsed:.2f}"


def _run_all(args: argparse.Namespace, kinds: list[str], workload: Workload, env: dict[str, str]) -> list[StartRecord]:
    """N rounds; each round starts every kind once, in the order given."""
    timeouts = Timeouts(args.start_timeout, args.cell_timeout)
    records: list[StartRecord] = []
    for index in range(1, args.starts + 1):
        for kind in kinds:
            _progress(f"{kind} #{index}: starting")
            log = args.work / "logs" / f"{kind}-{index}.log"
            busy_before, began = busy_cpu_seconds(), time.monotonic()
            if kind == "floor":
                record = run_floor_start(index, workload, timeouts.start, timeouts.cell, env, log)
            else:
                name = ANCHOR_KERNEL if kind == "anchor" else f"{OURS_KERNEL}{kind.removeprefix('ours')}"
                record = run_kernel_start(kind, index, name, args.work / "kernels", workload, timeouts, env, log)
            _record_contention(record, busy_cpu_seconds() - busy_before, time.monotonic() - began)
            records.append(record)
            _progress(f"{kind} #{index}: {_describe(record)}")
    return records


def _failure_notes(records: list[StartRecord], work_name: str) -> list[str]:
    notes: list[str] = []
    for record in records:
        if record.failure:
            log = f" (log: `{work_name}/logs/{record.info['log']}`)" if "log" in record.info else ""
            notes.append(f"{record.kind} #{record.index} failed: {record.failure}{log}")
        notes += [f"{record.kind} #{record.index}: {problem}" for problem in record.problems[:5]]
    return notes


def _kernel_descriptions(records: list[StartRecord]) -> list[tuple[str, str]]:
    described: list[tuple[str, str]] = []
    for kind in ("ours", "anchor"):
        info = next((r.info for r in records if r.kind == kind and "implementation" in r.info), None)
        if info:
            described.append(
                (kind, f"{info['implementation']}, language {info['language_version']}; banner: {info['banner']!r}")
            )
    floor = next((r.info for r in records if r.kind == "floor" and "jvm_options" in r.info), None)
    if floor:
        described.append(
            (
                "floor",
                "kotlin_llm_kernel.jvm.jvm.start_jvm "
                f"(the kernel's JVM options: `{_without_home(floor['jvm_options'])}`) "
                "+ ScriptSession.create + executeAsync(code).get()",
            )
        )
    return described


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    args = _parse(arguments)
    workload = Workload(args.cells, args.total)
    command = shlex.join(["python", "bench/run.py", *arguments])
    load_before = environment.load_average()
    began = time.monotonic()
    env = environment.kernel_environment(args.java_home)
    notes: list[str] = []

    anchor, ours = _setup(args, notes)
    kinds = [
        k for k in args.kinds if not (k.startswith("ours") and ours is None) and not (k == "anchor" and anchor is None)
    ]
    if ours is not None or "floor" in kinds:
        _prepare_archive(env, notes)
    records = _run_all(args, kinds, workload, env)

    load_after = environment.load_average()
    notes += _failure_notes(records, args.work.name)
    versions = environment.package_versions()
    if anchor is not None:
        versions["kotlin-jupyter-kernel (anchor venv)"] = anchor.version
    context = [
        ("date", environment.now_utc()),
        ("repository", environment.git_revision(REPO)),
        ("machine", ", ".join(f"{k} {v}" for k, v in environment.machine().items())),
        ("load average before", load_before),
        ("load average after", load_after),
        ("JDK (all three)", environment.jdk(env)),
        ("Python", sys.version.split()[0]),
        ("packages", ", ".join(f"{k} {v}" for k, v in versions.items())),
        (
            "workload",
            f"{args.starts} start(s) of each of {', '.join(kinds)} in turn; per start a first `1 + 1`, "
            f"{workload.warm} × `1 + 1`, {workload.warm} × new function, {workload.warm} × new class, the error "
            f"cell, then `1 + 1` up to {workload.total} cells",
        ),
        ("wall time of the benchmark", f"{(time.monotonic() - began) / 60:.1f} min"),
    ]
    variants = {v.kind: v.describe() for v in args.variants}
    text = render(Comparison(workload, records), command, context, _kernel_descriptions(records), notes, variants)
    print(text)
    args.results.write_text(text, encoding="utf-8")
    raw = args.work / f"results-{time.strftime('%Y%m%d-%H%M%S')}.json"
    raw.write_text(json.dumps({"command": command, "records": [r.to_json() for r in records]}, indent=1), "utf-8")
    _progress(f"wrote {args.results} and {raw}")
    return 0


def _without_home(text: str) -> str:
    """The text with the user's home directory written as ``~``, so the report names no machine path."""
    return text.replace(str(Path.home()), "~")


if __name__ == "__main__":
    sys.exit(main())
