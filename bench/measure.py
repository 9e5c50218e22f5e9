"""Measurements: RSS and CPU of a process tree (psutil), per-start records, and the statistics used in the report."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil

MB = 1024 * 1024


@dataclass(frozen=True)
class Usage:
    """RSS (bytes) and CPU (user + system seconds) summed over a process and all its descendants."""

    rss_bytes: int
    cpu_seconds: float
    pids: tuple[int, ...]


def tree_usage(pid: int) -> Usage:
    """The usage of ``pid`` and its descendants now; processes that vanish while being read are skipped.

    CPU includes each process's reaped children (``children_user``/``children_system``), so short-lived helper
    processes still count; live descendants are counted once, as themselves.
    """
    root = psutil.Process(pid)
    processes = [root, *root.children(recursive=True)]
    rss, cpu, pids = 0, 0.0, []
    for process in processes:
        try:
            with process.oneshot():
                memory = process.memory_info()
                times = process.cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
        rss += memory.rss
        cpu += times.user + times.system + times.children_user + times.children_system
        pids.append(process.pid)
    return Usage(rss, cpu, tuple(pids))


_THREAD_NUMBER = re.compile(r"[#_ -]?\d+$")


def _thread_name(pid: int, tid: int) -> str:
    try:
        name = Path(f"/proc/{pid}/task/{tid}/comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return "?"
    return _THREAD_NUMBER.sub("", name) or name  # "GC Thread#1" and "GC Thread#0" are one group


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds (user + system) of the live threads of ``pid`` and its descendants, grouped by thread name.

    Names come from ``/proc`` (Linux; the JVM names its threads, e.g. ``C1 CompilerThre``, ``VM Thread``, the
    Python main thread carries the process name). Threads that have ended are not counted.
    """
    totals: dict[str, float] = {}
    root = psutil.Process(pid)
    for process in [root, *root.children(recursive=True)]:
        try:
            threads = process.threads()
            label = process.name()
        except psutil.Error:
            continue
        for thread in threads:
            name = f"{label}/{_thread_name(process.pid, thread.id)}"
            totals[name] = totals.get(name, 0.0) + thread.user_time + thread.system_time
    return dict(sorted(totals.items(), key=lambda item: -item[1]))


def busy_cpu_seconds() -> float:
    """CPU seconds the whole machine has spent busy (all cores, everything but idle and iowait) since boot."""
    times = psutil.cpu_times()
    fields: dict[str, float] = times._asdict()
    return sum(v for k, v in fields.items() if k not in ("idle", "iowait", "guest", "guest_nice"))


class ProcessTracker:
    """Remembers every process seen in a kernel's tree, so none can outlive its start (e.g. an orphaned ``java``)."""

    def __init__(self) -> None:
        self._seen: dict[int, float] = {}  # pid → create_time (guards against pid reuse)

    def record(self, pids: Sequence[int]) -> None:
        for pid in pids:
            if pid not in self._seen:
                try:
                    self._seen[pid] = psutil.Process(pid).create_time()
                except psutil.Error:
                    pass

    def kill_leftovers(self, timeout: float = 10.0) -> list[int]:
        """Kills the recorded processes still alive (and started at the recorded time); returns their pids."""
        alive: list[psutil.Process] = []
        for pid, created in self._seen.items():
            try:
                process = psutil.Process(pid)
                if process.create_time() == created and process.is_running():
                    alive.append(process)
            except psutil.Error:
                continue
        for process in alive:
            try:
                process.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(alive, timeout=timeout)
        return [p.pid for p in alive]


@dataclass
class Sample:
    """A boundary of the run: ``label`` is ``start`` (at the kernel_info reply, or the session's creation for the
    floor) or ``cell<N>`` (after cell N's reply and its iopub messages); ``t`` is seconds since the start."""

    label: str
    t: float
    rss_bytes: int
    cpu_seconds: float


@dataclass
class CellTiming:
    number: int
    phase: str
    seconds: float | None  # request sent → reply received; None when it failed
    problem: str | None = None  # an unexpected result, error or timeout


@dataclass
class StartRecord:
    """Everything measured in one fresh start of one kind (``ours``, ``anchor`` or ``floor``)."""

    kind: str
    index: int
    kernel_info_s: float | None = None  # start → kernel_info reply (kernels only)
    first_result_s: float | None = None  # start → reply of the first `1 + 1`
    cells: list[CellTiming] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    error_traceback_bytes: int | None = None
    error_traceback_lines: int | None = None
    info: dict[str, str] = field(default_factory=dict)  # versions, banner, sub-phase timings (floor)
    #: sample label → thread name → CPU seconds of the live threads of the tree (see :func:`thread_cpu`)
    threads: dict[str, dict[str, float]] = field(default_factory=dict)
    #: sample label → JVM memory figures in MB or counts (floor only: read in-process through JPype)
    jvm_memory: dict[str, dict[str, float]] = field(default_factory=dict)
    failure: str | None = None  # why the start did not complete; what was measured before is kept

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StartRecord:
        record = cls(**{k: v for k, v in data.items() if k not in ("cells", "samples")})
        record.cells = [CellTiming(**c) for c in data.get("cells", [])]
        record.samples = [Sample(**s) for s in data.get("samples", [])]
        return record

    @property
    def problems(self) -> list[str]:
        return [f"cell {c.number} ({c.phase}): {c.problem}" for c in self.cells if c.problem]


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile with linear interpolation between closest ranks (p90: ``fraction=0.9``)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


@dataclass(frozen=True)
class Summary:
    """Median, min and max of one metric over the starts that produced it."""

    median: float
    low: float
    high: float
    count: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Summary | None:
        return cls(median(values), min(values), max(values), len(values)) if values else None
