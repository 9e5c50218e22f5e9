"""Warm spares (issue 42): a fresh kernel's first result and first completion, cold, from a warm spare, and on
JetBrains' kernel; and what the idle pool costs in memory (see bench/README.md).

``python bench/spares.py [--starts 5] [--spare-kernel kotlin-llm] [--spare-env VAR=value …] [--spare-arg ARG …]``

Each round starts, for each case and each variant in turn, a fresh kernel through ``KernelManager.start_kernel()``
(the clock's start) in one working directory:

- **first result**: ``1 + 1`` sent once the kernel is ready (``wait_for_ready``): start → its ``execute_reply``;
- **first completion**: ``"abc".`` asked 1 s after the kernel is ready: request → ``complete_reply``.

Variants: ``cold`` (``kotlin-llm`` with ``KOTLIN_LLM_SPARES=0``: ``--cold-env``, ``--cold-arg``), ``spare``
(``--spare-kernel`` with ``--spare-env`` and ``--spare-arg``, where ``{pool_dir}`` names the pool; before its start a
ready spare for the working directory is waited for in the pool, untimed) and ``jetbrains`` (PyPI
``kotlin-jupyter-kernel``, installed into ``bench/.anchor-venv`` as bench/run.py does). Before every start the pool is
let settle (no spare starting, one ready), so that no spare's preparation runs beside a timed start.
The pool is a private directory (``KOTLIN_LLM_SPARES_DIR``), stopped at the end (``python -m kotlin_llm_kernel pool
stop``). After the rounds a ready spare idles ``--idle`` seconds and the RSS and PSS (psutil ``memory_full_info``) of
each process the pool keeps are read: every ready spare's kernel and any other pid its record names.

The report (medians [min–max], ratios against cold in the same run, the load average before and after) goes to stdout
and ``--out``.
"""

from __future__ import annotations

import argparse
import os
import queue
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from jupyter_client.manager import KernelManager
from kotlin_llm_kernel.spares.pool import Pool, Record

import environment
from anchor import VERSION as ANCHOR_VERSION
from anchor import ensure_anchor
from environment import BENCH_DIR, REPO
from kernels import (
    ANCHOR_KERNEL,
    OURS_KERNEL,
    SHUTDOWN_WAIT_SECONDS,
    find_our_kernelspec,
    prepare_kernelspecs,
    result_text,
    spec_manager,
)
from measure import ProcessTracker, median, tree_usage

POOL_DIR_VARIABLE = "KOTLIN_LLM_SPARES_DIR"
SPARES_VARIABLE = "KOTLIN_LLM_SPARES"
CASES = ("result", "completion")
VARIANTS = ("cold", "spare", "jetbrains")
COMPLETED = '"abc".'
EXPECTED = ("length", "uppercase")
#: The pause between ready and the completion request: a person opening a notebook and typing.
PAUSE = 1.0
#: Starts that prime an empty pool (untimed) before it is given up.
PRIMES = 3


@dataclass(frozen=True)
class Variant:
    name: str
    kernel: str
    env: dict[str, str]
    arguments: tuple[str, ...] = ()


@dataclass
class Start:
    variant: str
    case: str
    seconds: float | None = None
    spare: bool | None = None  # what kernel_info's ``kotlin_llm.spare`` said (ours only)
    offered: bool | None = None  # the completion offered length and uppercase
    failure: str | None = None


@dataclass
class Run:
    starts: list[Start] = field(default_factory=list)
    primes: int = 0

    def of(self, variant: str, case: str) -> list[Start]:
        return [s for s in self.starts if s.variant == variant and s.case == case]


def _progress(message: str) -> None:
    print(f"[spares {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _assignments(items: Sequence[str], parser: argparse.ArgumentParser) -> dict[str, str]:
    found = {}
    for item in items:
        name, equals, value = item.partition("=")
        if not equals or not name:
            parser.error(f"expected VAR=value, got {item!r}")
        found[name] = value
    return found


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=5, help="fresh kernels per case and variant (default 5)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="which, in this order (default all three)")
    parser.add_argument("--spare-kernel", default=OURS_KERNEL, help=f"the kernel given spares ({OURS_KERNEL})")
    parser.add_argument("--spare-env", action="append", default=[], metavar="VAR=value", help="its environment")
    parser.add_argument(
        "--spare-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="its extra kernel arguments ({pool_dir}: the pool)",
    )
    parser.add_argument(
        "--cold-env",
        action="append",
        metavar="VAR=value",
        help=f"the environment of the cold {OURS_KERNEL} (default {SPARES_VARIABLE}=0)",
    )
    parser.add_argument("--cold-arg", action="append", default=[], metavar="ARG", help="its extra kernel arguments")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds a spare idles before its memory is read")
    parser.add_argument("--java-home", help="the JDK of every kernel (default: JAVA_HOME, else java on PATH)")
    parser.add_argument("--anchor-version", default=ANCHOR_VERSION, help="kotlin-jupyter-kernel's PyPI version")
    parser.add_argument("--anchor-venv", type=Path, default=BENCH_DIR / ".anchor-venv", help="the anchor's venv")
    parser.add_argument("--work", type=Path, default=BENCH_DIR / ".work" / "spares", help="kernelspecs and logs")
    parser.add_argument("--timeout", type=float, default=180.0, help="bound of every wait for a kernel (s)")
    parser.add_argument("--pool-timeout", type=float, default=300.0, help="bound of every wait for the pool (s)")
    parser.add_argument("--out", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    args.variants = [v for v in args.variants.split(",") if v]
    if not args.variants or set(args.variants) - set(VARIANTS):
        parser.error(f"--variants takes some of {', '.join(VARIANTS)}")
    if args.starts < 1:
        parser.error("--starts must be at least 1")
    args.spare_env = _assignments(args.spare_env, parser)
    args.cold_env = _assignments(args.cold_env or [f"{SPARES_VARIABLE}=0"], parser)
    return args


def _kernelspecs(args: argparse.Namespace, kernels: Path) -> None:
    """Our kernel, the spare kernel and JetBrains' (each only when asked for) into ``kernels``, the one directory
    jupyter_client looks in."""
    anchor = ensure_anchor(args.anchor_venv, args.anchor_version) if "jetbrains" in args.variants else None
    ours = find_our_kernelspec()
    if ours is None:
        sys.exit(f"no {OURS_KERNEL} kernelspec here: python -m kotlin_llm_kernel install --sys-prefix")
    prepare_kernelspecs(kernels, ours, anchor.kernelspec if anchor else None, anchor.python if anchor else None)
    if "spare" in args.variants and not (kernels / args.spare_kernel).exists():
        try:
            spare = Path(KernelSpecManager().get_kernel_spec(args.spare_kernel).resource_dir)
        except NoSuchKernel:
            sys.exit(f"no {args.spare_kernel} kernelspec here: python -m kotlin_llm_kernel install --sys-prefix")
        shutil.copytree(spare, kernels / args.spare_kernel)  # its argv names its interpreter already


def _shell_reply(client: BlockingKernelClient, msg_id: str, deadline: float) -> dict[str, Any]:
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            message: dict[str, Any] = client.get_shell_msg(timeout=remaining)
        except queue.Empty:
            break
        if message["parent_header"].get("msg_id") == msg_id:
            return message
    raise TimeoutError(f"no reply to {msg_id}")


def _measure(client: BlockingKernelClient, case: str, began: float, timeout: float, start: Start) -> None:
    if case == "result":
        msg_id = client.execute("1 + 1")
        _shell_reply(client, msg_id, time.monotonic() + timeout)
        start.seconds = time.perf_counter() - began
        if (text := result_text(client, msg_id, time.monotonic() + timeout)) != "2":
            raise RuntimeError(f"1 + 1 gave {text!r}")
        return
    time.sleep(PAUSE)  # the person's pause is the point of the case, not a wait for an event
    sent = time.perf_counter()
    reply = _shell_reply(client, client.complete(COMPLETED, len(COMPLETED)), time.monotonic() + timeout)
    start.seconds = time.perf_counter() - sent
    names = {match.split("(")[0] for match in reply["content"].get("matches", [])}
    start.offered = all(name in names for name in EXPECTED)


def _start(
    variant: Variant, case: str, kernels: Path, cwd: Path, env: dict[str, str], log: Path, timeout: float
) -> Start:
    """One fresh kernel of ``variant``, measured for ``case`` (``None`` seconds and a failure when it went wrong)."""
    start = Start(variant.name, case)
    manager = KernelManager(kernel_name=variant.kernel, kernel_spec_manager=spec_manager(kernels))
    manager.shutdown_wait_time = SHUTDOWN_WAIT_SECONDS
    tracker = ProcessTracker()
    client: BlockingKernelClient | None = None
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        began = time.perf_counter()
        try:
            manager.start_kernel(
                env=env | variant.env, extra_arguments=list(variant.arguments), cwd=str(cwd), stdout=out, stderr=out
            )
            pid = getattr(manager.provisioner, "pid", None)
            client = manager.client()
            client.start_channels()
            client.wait_for_ready(timeout=timeout)
            if pid is not None:
                tracker.record(tree_usage(pid).pids)
            _measure(client, case, began, timeout, start)
            info = _shell_reply(client, client.kernel_info(), time.monotonic() + timeout)["content"]
            start.spare = info.get("kotlin_llm", {}).get("spare")
        except Exception as error:  # noqa: BLE001 - recorded; the bench goes on with the next start
            start.failure = f"{type(error).__name__}: {error} (log {log.name})"
        finally:
            if client is not None:
                client.stop_channels()
            try:
                manager.shutdown_kernel(now=False)
            except Exception:  # noqa: BLE001 - then by force
                try:
                    manager.shutdown_kernel(now=True)
                except Exception:  # noqa: BLE001 - never started, or gone: the tracker ends what is left
                    pass
            tracker.kill_leftovers()
    return start


def _alive(pid: object) -> bool:
    return isinstance(pid, int) and psutil.pid_exists(pid)


def _settle(pool: Pool, cwd: Path, prime: Callable[[], None], timeout: float) -> Record:
    """Waits until no spare is starting and one is ready for ``cwd``; primes an empty pool with an untimed start."""
    deadline = time.monotonic() + timeout
    primes = 0
    while True:
        starting = [r for r in pool.records("starting") if "spawner_pid" not in r.data or _alive(r.data["spawner_pid"])]
        ready = [r for r in pool.records("ready") if r.data.get("cwd") == str(cwd) and _alive(r.pid)]
        if ready and not starting:
            return ready[0]
        if not ready and not starting:
            if primes == PRIMES:
                raise RuntimeError(f"no spare became ready in {pool.directory} after {PRIMES} starts")
            primes += 1
            prime()
            continue
        if time.monotonic() > deadline:
            raise RuntimeError(f"the pool {pool.directory} did not settle within {timeout:.0f} s")
        time.sleep(0.2)


def _memory(pool: Pool, cwd: Path, idle: float, settle: Callable[[], Record]) -> list[tuple[str, int, float, float]]:
    """(what, pid, RSS MB, PSS MB) of each process the idle pool keeps, once a ready spare idled ``idle`` s."""
    record = settle()
    ready_at = float(record.data.get("ready_at") or time.time())
    time.sleep(max(0.0, ready_at + idle - time.time()))
    rows = []
    for record in pool.records("ready"):
        pids = {"kernel": record.pid} | {
            key.removesuffix("_pid"): value
            for key, value in record.data.items()
            if key.endswith("_pid") and key != "owner_pid"
        }
        for what, pid in pids.items():
            if not _alive(pid):
                continue
            try:
                full = psutil.Process(int(pid)).memory_full_info()
            except psutil.Error:
                continue
            rows.append((f"{what} of spare {record.id}", int(pid), full.rss / 1e6, full.pss / 1e6))
    return rows


def _stop_pool(directory: Path) -> str:
    env = os.environ | {POOL_DIR_VARIABLE: str(directory)}
    command = [sys.executable, "-m", "kotlin_llm_kernel", "pool", "stop"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    return (done.stdout + done.stderr).strip()


def _summary(values: Sequence[float], scale: float) -> str:
    digits = 0 if scale > 1 else 2
    return f"{median(values) * scale:.{digits}f} [{min(values) * scale:.{digits}f}–{max(values) * scale:.{digits}f}]"


def _report(args: argparse.Namespace, run: Run, memory: list[tuple[str, int, float, float]], context: str) -> str:
    variants = args.variants
    others = [v for v in variants if v != "cold"]
    label = {"cold": "cold", "spare": "spare", "jetbrains": "JetBrains' kernel"}
    lines = [
        context,
        "",
        f"| median [min–max] of {args.starts} | "
        + " | ".join(label[v] for v in variants)
        + "".join(f" | {label[v]} / cold" for v in others if "cold" in variants)
        + " |",
        "|---|" + "---|" * (len(variants) + (len(others) if "cold" in variants else 0)),
    ]
    titles = {
        "result": ("start → first `1 + 1` result (s)", 1.0),
        "completion": (f"first `{COMPLETED}` completion, asked {PAUSE:.0f} s after ready (ms)", 1000.0),
    }
    for case, (title, scale) in titles.items():
        values = {v: [s.seconds for s in run.of(v, case) if s.seconds is not None] for v in variants}
        row = [_summary(values[v], scale) if values[v] else "–" for v in variants]
        if "cold" in variants and values["cold"]:
            cold = median(values["cold"])
            row += [f"{median(values[v]) / cold:.2f}×" if values[v] else "–" for v in others]
        lines.append(f"| {title} | " + " | ".join(row) + " |")
    lines.append("")
    for v in ("cold", "spare"):
        if v in variants:
            said = [s.spare for s in run.starts if s.variant == v and s.failure is None]
            lines.append(f"- {label[v]}: {said.count(True)} of {len(said)} starts said `kotlin_llm.spare` true")
    offered = {v: [s.offered for s in run.of(v, "completion") if s.offered is not None] for v in variants}
    lines.append(
        "- completions offering `length` and `uppercase`: "
        + ", ".join(f"{label[v]} {offered[v].count(True)}/{len(offered[v])}" for v in variants)
    )
    lines.append(f"- untimed starts that primed the empty pool: {run.primes}")
    lines += [f"- FAILED {s.variant} {s.case}: {s.failure}" for s in run.starts if s.failure]
    if memory:
        lines += [
            "",
            f"The idle pool after a spare idled {args.idle:.0f} s (psutil `memory_full_info`, MB = 10^6 B):",
            "",
        ]
        lines += ["| process | RSS (MB) | PSS (MB) |", "|---|---|---|"]
        lines += [f"| {what} | {rss:.0f} | {pss:.0f} |" for what, _, rss, pss in memory]
        lines.append(f"| all | {sum(r[2] for r in memory):.0f} | {sum(r[3] for r in memory):.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    args = _parse(arguments)
    command = shlex.join(["python", "bench/spares.py", *arguments])
    load_before = environment.load_average()
    kernels = args.work / "kernels"
    _kernelspecs(args, kernels)
    cwd = (args.work / "cwd").resolve()
    cwd.mkdir(parents=True, exist_ok=True)
    pool_dir = Path(tempfile.mkdtemp(prefix="kotlin-llm-bench-spares-"))
    os.environ[POOL_DIR_VARIABLE] = str(pool_dir)  # `pool stop` from this process reads it
    pool = Pool(pool_dir)
    env = {k: v for k, v in environment.kernel_environment(args.java_home).items() if k != SPARES_VARIABLE}
    env[POOL_DIR_VARIABLE] = str(pool_dir)
    spare_arguments = tuple(a.replace("{pool_dir}", str(pool_dir)) for a in args.spare_arg)
    variants = {
        "cold": Variant("cold", OURS_KERNEL, args.cold_env, tuple(args.cold_arg)),
        "spare": Variant("spare", args.spare_kernel, args.spare_env, spare_arguments),
        "jetbrains": Variant("jetbrains", ANCHOR_KERNEL, {}),
    }
    made = subprocess.run(
        [sys.executable, "-m", "kotlin_llm_kernel.cds", *args.cold_arg],
        env=env | args.cold_env,
        capture_output=True,
        text=True,
        check=True,
    )
    _progress(made.stdout.strip())
    run = Run()
    logs = args.work / "logs"

    def prime() -> None:
        run.primes += 1
        _progress(f"priming the pool (untimed start {run.primes})")
        _start(variants["spare"], "result", kernels, cwd, env, logs / f"prime-{run.primes}.log", args.timeout)

    def settle() -> Record:
        return _settle(pool, cwd, prime, args.pool_timeout)

    memory: list[tuple[str, int, float, float]] = []
    try:
        for index in range(1, args.starts + 1):
            for case in CASES:
                for name in args.variants:
                    if "spare" in args.variants:
                        settle()
                    log = logs / f"{name}-{case}-{index}.log"
                    start = _start(variants[name], case, kernels, cwd, env, log, args.timeout)
                    run.starts.append(start)
                    shown = "–" if start.seconds is None else f"{start.seconds:.3f} s"
                    _progress(f"{name} {case} #{index}: {shown} spare={start.spare} {start.failure or ''}")
        if "spare" in args.variants:
            _progress(f"the idle pool's memory after {args.idle:.0f} s")
            memory = _memory(pool, cwd, args.idle, settle)
    finally:
        _progress(_stop_pool(pool_dir))
        shutil.rmtree(pool_dir, ignore_errors=True)
    context = (
        f"`{command}`, {environment.now_utc()}, repository {environment.git_revision(REPO)}, "
        f"JDK {environment.jdk(env).split(';')[0]}, load average {load_before} before, "
        f"{environment.load_average()} after."
    )
    text = _report(args, run, memory, context)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
