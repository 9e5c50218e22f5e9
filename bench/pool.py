"""A warm pool through Jupyter Kernel Gateway (issue 14; bench/README.md, docs/pool.md): the time from a request to
the first result with a prespawned kernel vs a fresh one, with and without a seed notebook, and each kernel's RSS
and PSS with 1, 2 and 4 kernels running.

``python bench/pool.py [--repeats N] [--counts 1,2,4] [--java-home DIR]``

Each round starts a gateway prespawning one kernel; once that kernel is idle and its background warm-up is over,
an agent's request is timed: connect to its websocket, run the first cell, until its result arrives. The kernel is
then shut down and a fresh one requested (``POST /api/kernels``, connect, the same cell). The same again with the
gateway's ``seed_uri`` (a notebook every kernel runs when it starts). Then, for each count, a gateway prespawning that
many kernels; each runs the first cell and idles; their /proc/PID/smaps_rollup is read. The "Pool" section of
``--results`` is replaced (the other sections are kept); raw records go to ``<work>/pool-*.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

import environment
from completion_report import replace_section
from environment import BENCH_DIR, REPO
from gateway import Gateway, mapped_files, settle, smaps_rollup, start_gateway
from kernels import OURS_KERNEL, find_our_kernelspec, prepare_kernelspecs
from measure import median

HEADING = "## Pool"

#: The agent's first cell: a declaration, a lambda and a collection call, so that compiling it is real work.
FIRST_CELL = "val squares = (1..10).map { it * it }\nsquares.sum()"
FIRST_RESULT = "385"
#: The seed notebook's cells: expressions only, so the agent's session gets no declarations from it.
SEED_CELLS = ("listOf(3, 1, 2).map { it * 2 }.filter { it > 1 }.sorted().sum()", '"seed ${1 + 2}".uppercase()')
KINDS = ("prespawned", "prespawned + seed", "fresh", "fresh + seed")
MB = 1_000_000


def _progress(message: str) -> None:
    print(f"[pool {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@dataclass
class Request:
    kind: str
    index: int
    #: request (connect, or POST /api/kernels for a fresh kernel) → the first cell's execute_result, seconds.
    first_result: float | None = None
    #: request → the first cell's execute_reply.
    reply: float | None = None
    #: POST /api/kernels → its response (fresh kernels only).
    post: float | None = None
    #: how long the prespawned kernel was left to finish its warm-up before the request.
    settled_after: float | None = None
    #: the first cell's number: after a seed of n cells, n + 1 (else the cell ran while the seed did).
    execution_count: int | None = None
    failure: str | None = None


@dataclass
class KernelMemory:
    count: int
    pid: int
    rss: int
    pss: int
    shared: int
    private: int
    archives: list[str] = field(default_factory=list)


async def _wait_listed(gateway: Gateway, count: int, timeout: float) -> list[str]:
    """The ids of ``count`` kernels once the gateway lists them (polled: it has no event for that). Their
    ``execution_state`` is no readiness signal: it stays ``starting`` until a client connects. While a kernel is
    being started the listing can fail (500, a kernel without its ``last_activity`` yet): then it is asked again."""
    deadline = time.monotonic() + timeout
    while True:
        status, listed = await gateway.api("GET", "kernels")
        ids = [k["id"] for k in listed] if status == 200 else []
        if len(ids) >= count and len(gateway.kernel_processes()) >= count:
            return ids[:count]
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(ids)} of {count} kernels listed after {timeout} s")
        await asyncio.sleep(0.2)


async def _first_cell(gateway: Gateway, kernel_id: str, began: float, record: Request, number: int = 1) -> None:
    channels = await gateway.channels(kernel_id)
    try:
        result = await channels.execute(FIRST_CELL)
    finally:
        channels.close()
    if result.status != "ok" or result.text != FIRST_RESULT or result.first_result is None:
        raise RuntimeError(f"the first cell gave {result.status} {result.text!r}")
    record.first_result = result.first_result - began
    record.reply = result.reply - began
    record.execution_count = result.execution_count
    if result.execution_count != number:
        raise RuntimeError(f"the first cell was [{result.execution_count}], not [{number}]: the seed was still running")


async def _delete(gateway: Gateway, kernel_id: str, process: psutil.Process) -> None:
    status, _ = await gateway.api("DELETE", f"kernels/{kernel_id}")
    if status != 204:
        raise RuntimeError(f"DELETE of kernel {kernel_id}: {status}")
    psutil.wait_procs([process], timeout=60)


async def _round(gateway: Gateway, seeded: bool, index: int, timeout: float) -> list[Request]:
    suffix = " + seed" if seeded else ""
    number = len(SEED_CELLS) + 1 if seeded else 1
    warm = Request(f"prespawned{suffix}", index)
    fresh = Request(f"fresh{suffix}", index)
    try:
        [kernel_id] = await _wait_listed(gateway, 1, timeout)
        process = gateway.kernel_processes()[kernel_id]
        warm.settled_after = await asyncio.to_thread(settle, process)
        await _first_cell(gateway, kernel_id, time.monotonic(), warm, number)
        await _delete(gateway, kernel_id, process)
    except Exception as error:  # noqa: BLE001 - recorded; the fresh kernel is still measured
        warm.failure = _failure(error)
    try:
        began = time.monotonic()
        status, model = await gateway.api("POST", "kernels", {"name": OURS_KERNEL}, timeout=timeout)
        if status != 201:
            raise RuntimeError(f"POST /api/kernels: {status} {model}")
        fresh.post = time.monotonic() - began
        await _first_cell(gateway, model["id"], began, fresh, number)
    except Exception as error:  # noqa: BLE001 - recorded
        fresh.failure = _failure(error)
    return [warm, fresh]


def _failure(error: Exception) -> str:
    lines = str(error).splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def _seed_notebook(work: Path) -> Path:
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": c, "execution_count": None} for c in SEED_CELLS
    ]
    spec = {"name": OURS_KERNEL, "display_name": "Kotlin (LLM)", "language": "kotlin"}
    notebook = {"cells": cells, "metadata": {"kernelspec": spec}, "nbformat": 4, "nbformat_minor": 5}
    path = work / "seed.ipynb"
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    return path


def _pool_arguments(count: int, seed: Path | None) -> list[str]:
    arguments = [f"--KernelGatewayApp.prespawn_count={count}", f"--KernelGatewayApp.default_kernel_name={OURS_KERNEL}"]
    return arguments + ([f"--KernelGatewayApp.seed_uri={seed.as_uri()}"] if seed else [])


def _latency(args: argparse.Namespace, env: dict[str, str], seed: Path) -> list[Request]:
    records: list[Request] = []
    for index in range(1, args.repeats + 1):
        for seeded in (False, True):
            name = f"{'seed' if seeded else 'plain'}-{index}"
            _progress(f"round {index}: gateway {name}")
            gateway = start_gateway(args.work, name, _pool_arguments(1, seed if seeded else None), env)
            try:
                records += asyncio.run(_round(gateway, seeded, index, args.start_timeout))
            finally:
                left = gateway.stop()
                if left:
                    _progress(f"killed what the gateway left: {left}")
            _progress("; ".join(_describe(r) for r in records[-2:]))
    return records


def _describe(record: Request) -> str:
    if record.failure:
        return f"{record.kind} #{record.index}: failed ({record.failure})"
    return f"{record.kind} #{record.index}: first result {record.first_result:.2f} s"


async def _pool_memory(gateway: Gateway, count: int, timeout: float) -> list[KernelMemory]:
    ids = await _wait_listed(gateway, count, timeout)
    processes = gateway.kernel_processes()
    for kernel_id in ids:
        await asyncio.to_thread(settle, processes[kernel_id])
    for kernel_id in ids:
        await _first_cell(gateway, kernel_id, time.monotonic(), Request("memory", count))
    for kernel_id in ids:
        await asyncio.to_thread(settle, processes[kernel_id])
    found = []
    for kernel_id in ids:
        pid = processes[kernel_id].pid
        fields = smaps_rollup(pid)
        found.append(
            KernelMemory(
                count,
                pid,
                fields["Rss"],
                fields["Pss"],
                fields.get("Shared_Clean", 0) + fields.get("Shared_Dirty", 0),
                fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0),
                sorted(mapped_files(pid, (".jsa", ".aot"))),
            )
        )
    return found


def _memory(args: argparse.Namespace, env: dict[str, str]) -> tuple[list[KernelMemory], list[str]]:
    found: list[KernelMemory] = []
    notes: list[str] = []
    for count in args.counts:
        _progress(f"memory: gateway with {count} kernel(s)")
        gateway = start_gateway(args.work, f"memory-{count}", _pool_arguments(count, None), env)
        try:
            found += asyncio.run(_pool_memory(gateway, count, args.start_timeout))
        except Exception as error:  # noqa: BLE001 - recorded; the other counts still run
            notes.append(f"{count} kernel(s) failed: {_failure(error)}")
        finally:
            gateway.stop()
    return found, notes


def _figure(values: list[float], unit: str = "s") -> str:
    if not values:
        return "–"
    if unit == "MB":
        return f"{median(values) / MB:.0f} [{min(values) / MB:.0f}–{max(values) / MB:.0f}]"
    return f"{median(values):.2f} [{min(values):.2f}–{max(values):.2f}]"


def render(records: list[Request], memory: list[KernelMemory], command: str, context: list[tuple[str, str]]) -> str:
    lines = [HEADING, "", f"`{command}`", ""]
    lines += [f"- {name}: {value}" for name, value in context]
    lines += [
        "",
        f"First cell `{FIRST_CELL.replace(chr(10), '⏎')}` (result `{FIRST_RESULT}`). *Prespawned*: the gateway's "
        "kernel, once listed and its CPU quiet (its start and background warm-up over); timed from connecting to its "
        "websocket. *Fresh*: timed from `POST /api/kernels`. *+ seed*: the gateway runs the seed notebook "
        f"({' / '.join(f'`{c}`' for c in SEED_CELLS)}) on each kernel it starts (`seed_uri`), before `POST` answers; "
        "a prespawned kernel is listed at once, while its seed runs, so its first cell must be "
        f"`[{len(SEED_CELLS) + 1}]` (else the run is not counted). Median [min–max] over the rounds, seconds.",
        "",
        "| kernel | request → first result | request → reply | POST → response | runs |",
        "|---|---:|---:|---:|---:|",
    ]
    by_kind = {kind: [r for r in records if r.kind == kind and not r.failure] for kind in KINDS}
    for kind, done in by_kind.items():
        firsts = [r.first_result for r in done if r.first_result is not None]
        replies = [r.reply for r in done if r.reply is not None]
        posts = [r.post for r in done if r.post is not None]
        runs = f"{len(done)}/{len([r for r in records if r.kind == kind])}"
        lines.append(f"| {kind} | {_figure(firsts)} | {_figure(replies)} | {_figure(posts)} | {runs} |")

    def med(kind: str) -> float | None:
        values = [r.first_result for r in by_kind[kind] if r.first_result is not None]
        return median(values) if values else None

    lines.append("")
    for a, b in (("prespawned", "fresh"), ("prespawned + seed", "prespawned"), ("fresh + seed", "fresh")):
        ma, mb = med(a), med(b)
        if ma is not None and mb is not None:
            lines.append(f"- first result, {a} / {b}: **{ma / mb:.2f}×** ({ma:.2f} s / {mb:.2f} s)")
    lines += [
        "",
        "Memory: a gateway prespawning *n* kernels; each ran the first cell and idled until its CPU was quiet; then "
        "/proc/PID/smaps_rollup of each kernel process (Python + the JVM, one process). *PSS* charges each shared "
        "page to its sharers in equal parts (the class-data sharing archives, the JDK's libraries and the Python "
        "interpreter are mapped by every kernel); *shared* / *private*: the pages mapped by several processes or by "
        "this one alone. MB = 10^6 bytes; median [min–max] over the kernels of that gateway.",
        "",
        "| kernels | RSS per kernel | PSS per kernel | PSS / RSS | shared | private | sum of PSS | archives mapped |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for count in sorted({m.count for m in memory}):
        rows = [m for m in memory if m.count == count]
        rss, pss = [float(m.rss) for m in rows], [float(m.pss) for m in rows]
        archives = sorted({Path(a).name for m in rows for a in m.archives})
        lines.append(
            f"| {count} | {_figure(rss, 'MB')} | {_figure(pss, 'MB')} | {median(pss) / median(rss):.2f} | "
            f"{_figure([float(m.shared) for m in rows], 'MB')} | {_figure([float(m.private) for m in rows], 'MB')} | "
            f"{sum(pss) / MB:.0f} | {', '.join(f'`{a}`' for a in archives) or 'none'} |"
        )
    failures = [f"{r.kind} #{r.index} failed: {r.failure}" for r in records if r.failure]
    if failures:
        lines += ["", *(f"- {f}" for f in failures)]
    return "\n".join(lines) + "\n"


def _prepare_archive(env: dict[str, str], notes: list[str]) -> None:
    """Makes our class-data sharing archive first, so that every kernel starts with it (as a user's second start
    does) and its background maker does not run during a measurement."""
    done = subprocess.run(
        [sys.executable, "-m", "kotlin_llm_kernel.cds"], env=env, capture_output=True, text=True, timeout=1800
    )
    if done.returncode != 0:
        notes.append(f"The class-data sharing archive could not be made: {done.stderr.strip()[-300:]}")


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5, help="rounds of each kind (default 5)")
    parser.add_argument("--counts", default="1,2,4", help="kernels per gateway for the memory table (default 1,2,4)")
    parser.add_argument("--start-timeout", type=float, default=180.0, help="seconds for kernels to be idle")
    parser.add_argument("--java-home", help="the JDK (default: JAVA_HOME, else java on PATH)")
    parser.add_argument("--work", type=Path, default=BENCH_DIR / ".work", help="kernelspecs, logs, raw JSON")
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "RESULTS.md", help="the report's file")
    parser.add_argument("--note", action="append", default=[], help="a line added to the report (repeatable)")
    args = parser.parse_args(argv)
    try:
        args.counts = [int(c) for c in args.counts.split(",") if c.strip()]
    except ValueError:
        parser.error("--counts takes numbers separated by commas, e.g. 1,2,4")
    if args.repeats < 1 or not args.counts or min(args.counts) < 1:
        parser.error("--repeats and each of --counts must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    args = _parse(arguments)
    command = shlex.join(["python", "bench/pool.py", *arguments])
    ours = find_our_kernelspec()
    if ours is None:
        print(f"No `{OURS_KERNEL}` kernelspec in this environment (`jupyter kernelspec list`).", file=sys.stderr)
        return 1
    args.work.mkdir(parents=True, exist_ok=True)
    # the gateway finds our kernelspec, copied here, before any other kotlin-llm (JUPYTER_PATH comes first)
    jupyter_dir = args.work / "pool-jupyter"
    prepare_kernelspecs(jupyter_dir / "kernels", ours, None, None)
    env = environment.kernel_environment(args.java_home) | {"JUPYTER_PATH": str(jupyter_dir)}
    revision = environment.git_revision(REPO)
    load_before = environment.load_average()
    notes: list[str] = list(args.note)
    began = time.monotonic()
    _prepare_archive(env, notes)
    records = _latency(args, env, _seed_notebook(args.work))
    memory, memory_notes = _memory(args, env)
    versions = environment.package_versions()
    context = [
        ("date", environment.now_utc()),
        ("repository", revision),
        ("machine", ", ".join(f"{k} {v}" for k, v in environment.machine().items())),
        ("JDK", environment.jdk(env)),
        ("packages", ", ".join(f"{k} {v}" for k, v in versions.items())),
        ("jupyter_kernel_gateway", _version("jupyter_kernel_gateway")),
        ("load average before / after", f"{load_before} / {environment.load_average()}"),
        ("wall time", f"{(time.monotonic() - began) / 60:.1f} min"),
        *(("note", note) for note in notes + memory_notes),
    ]
    text = render(records, memory, command, context)
    print(text)
    previous = args.results.read_text(encoding="utf-8") if args.results.exists() else ""
    args.results.write_text(replace_section(previous, HEADING, text), encoding="utf-8")
    raw = args.work / f"pool-{time.strftime('%Y%m%d-%H%M%S')}.json"
    document = {"command": command, "requests": [asdict(r) for r in records], "memory": [asdict(m) for m in memory]}
    raw.write_text(json.dumps(document, indent=1), encoding="utf-8")
    _progress(f"wrote the Pool section of {args.results} and {raw}")
    return 0


def _version(name: str) -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


if __name__ == "__main__":
    sys.exit(main())
