"""Per-start figures → the comparison table, the targets of issue 5, and bench/RESULTS.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from measure import CellTiming, Sample, StartRecord, Summary, median, percentile
from workload import ERROR, FIRST, PHASES, RSS_CELL, TAIL, WARM_CLASS, WARM_EXPR, WARM_FUN, Workload

MB = 1_000_000  # RSS is reported in MB of 10^6 bytes (the stricter reading of "300 MB")
KINDS = ("ours", "anchor", "floor")
#: Kinds named ``ours-<name>`` are ours with one lever changed (``--variant``), shown in the "Levers" table.
VARIANT_PREFIX = "ours-"
LEVER_METRICS = (
    "kernel_info",
    "first_result",
    "first_cell",
    "expr_median",
    "expr_p90",
    "fun_median",
    "class_median",
    "rss_start",
    "rss_first",
    "rss_50",
    "rss_total",
    "cpu_to_first",
    "cpu_total",
)


def _cells(record: StartRecord, phase: str) -> list[CellTiming]:
    return [c for c in record.cells if c.phase == phase and c.seconds is not None]


def _phase_times(record: StartRecord, phase: str, workload: Workload) -> list[float] | None:
    """The phase's cell times, or None when the phase did not run completely."""
    expected = sum(1 for c in workload.cells() if c.phase == phase)
    times = [c.seconds for c in _cells(record, phase) if c.seconds is not None]
    return times if times and len(times) == expected else None


def _sample(record: StartRecord, label: str) -> Sample | None:
    return next((s for s in record.samples if s.label == label), None)


def _phase_end(workload: Workload) -> dict[str, str]:
    """Phase → label of the sample taken after its last cell."""
    ends: dict[str, str] = {}
    for cell in workload.cells():
        ends[cell.phase] = f"cell{cell.number}"
    return ends


def _phase_cpu(record: StartRecord, phase: str, workload: Workload, per_cell: bool) -> float | None:
    ends = _phase_end(workload)
    order = [p for p in PHASES if p in ends]
    previous = "start" if order.index(phase) == 0 else ends[order[order.index(phase) - 1]]
    before, after = _sample(record, previous), _sample(record, ends[phase])
    if before is None or after is None:
        return None
    cpu = after.cpu_seconds - before.cpu_seconds
    count = sum(1 for c in workload.cells() if c.phase == phase)
    return cpu / count if per_cell else cpu


def _rss(record: StartRecord, label: str) -> float | None:
    sample = _sample(record, label)
    return None if sample is None else sample.rss_bytes / MB


def _tail_growth(record: StartRecord, workload: Workload) -> float | None:
    """MB per cell over the trivial tail: from after the error cell to after the last cell."""
    start, end = _sample(record, f"cell{workload.error_number}"), _sample(record, f"cell{workload.total}")
    cells = workload.total - workload.error_number
    if start is None or end is None or cells <= 0:
        return None
    return (end.rss_bytes - start.rss_bytes) / MB / cells


def _growth_from_50(record: StartRecord, workload: Workload) -> float | None:
    start, end = _sample(record, f"cell{RSS_CELL}"), _sample(record, f"cell{workload.total}")
    if start is None or end is None or workload.total <= RSS_CELL:
        return None
    return (end.rss_bytes - start.rss_bytes) / MB / (workload.total - RSS_CELL)


def _stat(phase: str, workload: Workload, fraction: float | None) -> Callable[[StartRecord], float | None]:
    def extract(record: StartRecord) -> float | None:
        times = _phase_times(record, phase, workload)
        if times is None:
            return None
        return median(times) if fraction is None else percentile(times, fraction)

    return extract


def _info_float(key: str) -> Callable[[StartRecord], float | None]:
    def extract(record: StartRecord) -> float | None:
        value = record.info.get(key)
        return None if value is None else float(value)

    return extract


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    unit: str  # "s", "MB", "MB/cell", "bytes", "CPU-s"
    extract: Callable[[StartRecord], float | None]
    floor_comparable: bool = True


def metrics(workload: Workload) -> list[Metric]:
    w, total = workload.warm, workload.total
    tail = total - workload.error_number
    rows = [
        Metric("kernel_info", "start → kernel_info reply", "s", lambda r: r.kernel_info_s, False),
        Metric("first_result", "start → first `1 + 1` result", "s", lambda r: r.first_result_s),
        Metric("first_cell", "first `1 + 1` cell (request → reply)", "s", _stat(FIRST, workload, None)),
        Metric("expr_median", f"warm `1 + 1` median ({w} cells)", "s", _stat(WARM_EXPR, workload, None)),
        Metric("expr_p90", "warm `1 + 1` p90", "s", _stat(WARM_EXPR, workload, 0.9)),
        Metric("fun_median", f"warm new function median ({w} cells)", "s", _stat(WARM_FUN, workload, None)),
        Metric("fun_p90", "warm new function p90", "s", _stat(WARM_FUN, workload, 0.9)),
        Metric("class_median", f"warm new class median ({w} cells)", "s", _stat(WARM_CLASS, workload, None)),
        Metric("class_p90", "warm new class p90", "s", _stat(WARM_CLASS, workload, 0.9)),
        Metric("error_cell", "error cell `asdf⏎println(foo)`", "s", _stat(ERROR, workload, None)),
        Metric("error_bytes", "error traceback size", "bytes", lambda r: r.error_traceback_bytes),
    ]
    if tail > 0:
        rows.append(
            Metric(
                "tail_median",
                f"`1 + 1` median, cells {workload.error_number + 1}–{total}",
                "s",
                _stat(TAIL, workload, None),
            )
        )
    rows += [
        Metric("rss_start", "RSS after start", "MB", lambda r: _rss(r, "start")),
        Metric("rss_first", "RSS after the first cell", "MB", lambda r: _rss(r, "cell1")),
    ]
    if total >= RSS_CELL:
        rows.append(Metric("rss_50", f"RSS after {RSS_CELL} cells", "MB", lambda r: _rss(r, f"cell{RSS_CELL}")))
    rows.append(Metric("rss_total", f"RSS after {total} cells", "MB", lambda r: _rss(r, f"cell{total}")))
    if tail > 0:
        rows.append(
            Metric(
                "growth_tail",
                f"RSS growth per `1 + 1` cell (cells {workload.error_number}→{total})",
                "MB/cell",
                lambda r: _tail_growth(r, workload),
            )
        )
    if total > RSS_CELL:
        rows.append(
            Metric(
                "growth_50",
                f"RSS growth per cell (cells {RSS_CELL}→{total}, mixed)",
                "MB/cell",
                lambda r: _growth_from_50(r, workload),
            )
        )
    rows += [
        Metric(
            "cpu_start",
            "CPU: start (to kernel_info; floor: to session created)",
            "CPU-s",
            lambda r: None if (s := _sample(r, "start")) is None else s.cpu_seconds,
            False,
        ),
        Metric(
            "cpu_first",
            "CPU: then to the first result",
            "CPU-s",
            lambda r: _phase_cpu(r, FIRST, workload, False),
            False,
        ),
        Metric(
            "cpu_to_first",
            "CPU: start → first result",
            "CPU-s",
            lambda r: None if (s := _sample(r, "cell1")) is None else s.cpu_seconds,
        ),
        Metric("cpu_expr", "CPU per warm `1 + 1` cell", "CPU-s", lambda r: _phase_cpu(r, WARM_EXPR, workload, True)),
        Metric("cpu_fun", "CPU per warm function cell", "CPU-s", lambda r: _phase_cpu(r, WARM_FUN, workload, True)),
        Metric("cpu_class", "CPU per warm class cell", "CPU-s", lambda r: _phase_cpu(r, WARM_CLASS, workload, True)),
        Metric("cpu_error", "CPU of the error cell", "CPU-s", lambda r: _phase_cpu(r, ERROR, workload, False)),
    ]
    if tail > 0:
        rows.append(
            Metric("cpu_tail", "CPU per tail `1 + 1` cell", "CPU-s", lambda r: _phase_cpu(r, TAIL, workload, True))
        )
    rows.append(
        Metric(
            "cpu_total",
            f"CPU: whole run ({total} cells)",
            "CPU-s",
            lambda r: None if (s := _sample(r, f"cell{total}")) is None else s.cpu_seconds,
        )
    )
    return rows


FLOOR_PHASES = [
    Metric("python_ready", "floor: Python up (interpreter + imports)", "s", _info_float("python_ready_s")),
    Metric("jvm_started", "floor: JVM started (JPype startJVM)", "s", _info_float("jvm_started_s")),
    Metric(
        "session_created", "floor: session created (compiler warm-up queued)", "s", _info_float("session_created_s")
    ),
]


def _format(value: float, unit: str) -> str:
    if unit == "bytes":
        return f"{value:,.0f}"
    if unit == "MB":
        return f"{value:.0f}"
    if unit == "MB/cell":
        return f"{value:.2f}"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def _cell(summary: Summary | None, unit: str) -> str:
    if summary is None:
        return "–"
    if summary.count == 1:
        return _format(summary.median, unit)
    return f"**{_format(summary.median, unit)}** [{_format(summary.low, unit)}–{_format(summary.high, unit)}]"


def _ratio(numerator: Summary | None, denominator: Summary | None) -> str:
    if numerator is None or denominator is None or denominator.median == 0:
        return "–"
    return f"{numerator.median / denominator.median:.2f}"


@dataclass
class Comparison:
    workload: Workload
    records: list[StartRecord]
    summaries: dict[str, dict[str, Summary | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for metric in [*metrics(self.workload), *FLOOR_PHASES]:
            self.summaries[metric.key] = {
                kind: Summary.of([v for r in self.records if r.kind == kind and (v := metric.extract(r)) is not None])
                for kind in (*KINDS, *self.variants())
            }

    def variants(self) -> list[str]:
        """The kinds of ours run with a lever changed (``--variant``), in the order they ran."""
        return list(dict.fromkeys(r.kind for r in self.records if r.kind.startswith(VARIANT_PREFIX)))

    def levers(self, descriptions: dict[str, str]) -> str:
        """Ours as shipped next to each variant of ours, same run: what each lever changes."""
        variants = self.variants()
        if not variants:
            return ""
        head = "| metric | unit | ours | " + " | ".join(f"{v} ({descriptions.get(v, '')})" for v in variants) + " |"
        lines = [head, "|---|---|---|" + "---|" * len(variants)]
        for metric in metrics(self.workload):
            if metric.key not in LEVER_METRICS:
                continue
            cells = [_cell(self.get(metric.key, kind), metric.unit) for kind in ["ours", *variants]]
            lines.append(f"| {metric.label} | {metric.unit} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def get(self, key: str, kind: str) -> Summary | None:
        return self.summaries.get(key, {}).get(kind)

    def table(self) -> str:
        lines = [
            "| metric | unit | ours (kotlin-llm) | anchor (kotlin) | floor (engine alone) | ours/anchor | ours/floor |",
            "|---|---|---|---|---|---|---|",
        ]
        for metric in metrics(self.workload):
            ours, anchor, floor = (self.get(metric.key, k) for k in KINDS)
            floor_ratio = _ratio(ours, floor) if metric.floor_comparable else "–"
            lines.append(
                f"| {metric.label} | {metric.unit} | {_cell(ours, metric.unit)} | {_cell(anchor, metric.unit)} | "
                f"{_cell(floor, metric.unit)} | {_ratio(ours, anchor)} | {floor_ratio} |"
            )
        return "\n".join(lines)

    def floor_phases(self) -> str:
        lines = ["| floor start-up, since the process was spawned | s |", "|---|---|"]
        for metric in FLOOR_PHASES:
            lines.append(f"| {metric.label} | {_cell(self.get(metric.key, 'floor'), metric.unit)} |")
        return "\n".join(lines)

    def targets(self) -> list[tuple[str, str, str]]:
        """(target, verdict, evidence) for each target of issue 5, judged on medians over the starts."""

        def verdict(ok: bool | None) -> str:
            return "not measured" if ok is None else ("MET" if ok else "NOT MET")

        def med(key: str, kind: str) -> float | None:
            summary = self.get(key, kind)
            return None if summary is None else summary.median

        first, expr, floor_expr = med("first_result", "ours"), med("expr_median", "ours"), med("expr_median", "floor")
        rss50, growth = med("rss_50", "ours"), med("growth_tail", "ours")
        rows = [
            (
                "start → first `1 + 1` ≤ 3 s",
                verdict(None if first is None else first <= 3.0),
                f"{first:.2f} s" if first is not None else "–",
            ),
            (
                "warm `1 + 1` ≤ 1.2 × floor",
                verdict(None if expr is None or floor_expr is None else expr <= 1.2 * floor_expr),
                f"{expr:.3f} s vs 1.2 × {floor_expr:.3f} s = {1.2 * floor_expr:.3f} s"
                if expr is not None and floor_expr is not None
                else "–",
            ),
            (
                "warm `1 + 1` ≤ 0.15 s",
                verdict(None if expr is None else expr <= 0.15),
                f"{expr:.3f} s" if expr is not None else "–",
            ),
            (
                "RSS after 50 cells ≤ 300 MB",
                verdict(None if rss50 is None else rss50 <= 300),
                f"{rss50:.0f} MB" if rss50 is not None else "–",
            ),
            (
                "RSS growth ≤ 0.5 MB per trivial cell",
                verdict(None if growth is None else growth <= 0.5),
                f"{growth:.2f} MB/cell over cells {self.workload.error_number}→{self.workload.total}"
                if growth is not None
                else "–",
            ),
        ]
        worse = []
        compared = 0
        for metric in metrics(self.workload):
            ours, anchor = med(metric.key, "ours"), med(metric.key, "anchor")
            if ours is None or anchor is None:
                continue
            compared += 1
            if ours >= anchor:
                worse.append(f"{metric.label} ({_format(ours, metric.unit)} vs {_format(anchor, metric.unit)})")
        rows.append(
            (
                "every figure better than the anchor's",
                verdict(None if compared == 0 else not worse),
                f"{compared - len(worse)} of {compared} better"
                + (f"; not better: {'; '.join(worse)}" if worse else ""),
            )
        )
        return rows

    def targets_table(self) -> str:
        lines = ["| target (issue 5) | verdict | ours (median) |", "|---|---|---|"]
        lines += [f"| {t} | {v} | {e} |" for t, v, e in self.targets()]
        return "\n".join(lines)

    def thread_cpu(self, top: int = 6) -> str:
        """Per kind and moment: the threads that used most CPU so far (median over starts, CPU-s)."""
        labels = [
            ("start", "at start"),
            ("cell1", "at the first result"),
            (f"cell{self.workload.total}", f"after {self.workload.total} cells"),
        ]
        lines = ["| kind | when | busiest threads, cumulative CPU-s (process/thread) |", "|---|---|---|"]
        for kind in KINDS:
            for label, when in labels:
                per_name: dict[str, list[float]] = {}
                for record in self.records:
                    if record.kind == kind and label in record.threads:
                        for name, cpu in record.threads[label].items():
                            per_name.setdefault(name, []).append(cpu)
                if not per_name:
                    continue
                ranked = sorted(((median(v), n) for n, v in per_name.items()), reverse=True)[:top]
                shown = ", ".join(f"`{n}` {c:.2f}" for c, n in ranked if c >= 0.01)
                lines.append(f"| {kind} | {when} | {shown} |")
        return "\n".join(lines)

    def jvm_memory(self) -> str:
        """The floor's JVM memory figures at each sample (median over starts)."""
        labels: list[str] = []
        for record in self.records:
            for label in record.jvm_memory:
                if label not in labels:
                    labels.append(label)
        keys = [
            "heap used",
            "heap committed",
            "Metaspace used",
            "Compressed Class Space used",
            "non-heap used",
            "classes loaded",
        ]
        if not labels:
            return ""
        lines = ["| floor, after | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
        for label in labels:
            row = []
            for key in keys:
                values = [
                    r.jvm_memory[label][key]
                    for r in self.records
                    if label in r.jvm_memory and key in r.jvm_memory[label]
                ]
                row.append(
                    "–"
                    if not values
                    else (f"{median(values):.0f}" if key == "classes loaded" else f"{median(values):.1f}")
                )
            lines.append(f"| {label.replace('cell', 'cell ')} | " + " | ".join(row) + " |")
        return "\n".join(lines)

    def per_start(self) -> str:
        lines = [
            "| start | kernel_info s | first result s | warm `1 + 1` median s | RSS@50 MB | "
            f"RSS@{self.workload.total} MB | CPU total | others' load | outcome |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        expr = _stat(WARM_EXPR, self.workload, None)
        for r in self.records:

            def show(value: float | None, unit: str) -> str:
                return "–" if value is None else _format(value, unit)

            outcome = r.failure or "ok"
            if r.problems:
                outcome += f"; {len(r.problems)} unexpected cell result(s): {r.problems[0]}"
            total = _sample(r, f"cell{self.workload.total}")
            lines.append(
                f"| {r.kind} #{r.index} | {show(r.kernel_info_s, 's')} | {show(r.first_result_s, 's')} | "
                f"{show(expr(r), 's')} | {show(_rss(r, f'cell{RSS_CELL}'), 'MB')} | "
                f"{show(_rss(r, f'cell{self.workload.total}'), 'MB')} | "
                f"{show(None if total is None else total.cpu_seconds, 'CPU-s')} | "
                f"{r.info.get('others_cores', '–')} | {outcome} |"
            )
        return "\n".join(lines)


def _bullets(items: Sequence[tuple[str, str]]) -> str:
    return "\n".join(f"- {k}: {v}" for k, v in items)


def render(
    comparison: Comparison,
    command: str,
    context: Sequence[tuple[str, str]],
    kernels: Sequence[tuple[str, str]],
    notes: Sequence[str],
    variants: dict[str, str] | None = None,
) -> str:
    """The whole RESULTS.md; ``variants``: kind → what was changed in that variant of ours."""
    w = comparison.workload
    parts = [
        "# Benchmark results: kotlin-llm vs JetBrains' Kotlin kernel (anchor) vs the engine alone (floor)",
        "",
        "Reproduce (from the repository root):",
        "",
        "```bash",
        command,
        "```",
        "",
        _bullets(context),
        "",
        "Kernels:",
        "",
        _bullets(kernels),
        "",
        "## Results",
        "",
        "Each cell: **median** [min–max] over the fresh starts of that kind (per start, warm figures are the median",
        f"or p90 of its {w.warm} cells). Lower is better everywhere; a ratio below 1 means ours is better/smaller.",
        "Times are wall-clock, request sent → reply received; start-up times from `KernelManager.start_kernel()`",
        "(floor: from spawning its Python process). RSS and CPU (user + system) are of the whole kernel process",
        "tree; RSS in MB of 10^6 bytes.",
        "",
        comparison.table(),
        "",
        "## Targets",
        "",
        comparison.targets_table(),
        "",
    ]
    if levers := comparison.levers(variants or {}):
        parts += [
            "## Levers",
            "",
            "Ours as shipped next to ours with one lever turned off (same run, interleaved; median [min–max] over",
            "the starts of each).",
            "",
            levers,
            "",
        ]
    parts += [
        "## Floor start-up phases",
        "",
        comparison.floor_phases(),
        "",
        "## Where the CPU goes",
        "",
        "Cumulative CPU of the live threads, grouped by thread name (JVM thread names are cut to 15 characters by",
        "Linux; `python/python` is the Python main thread; `kotlin-script-s` is the engine's session thread; threads",
        "that have ended are not counted).",
        "",
        comparison.thread_cpu(),
        "",
        "## JVM memory of the engine (floor)",
        "",
        "MB of 10^6 bytes, read in the floor process through the JVM's MXBeans right after each RSS sample; the last",
        "row is after an explicit `System.gc()` at the very end (what the session keeps alive).",
        "",
        comparison.jvm_memory(),
        "",
        "## Per start",
        "",
        "*Others' load*: cores kept busy on average by other processes during the start (machine-wide busy CPU",
        "minus the kernel's own), out of the machine's cores: the contention each start ran under.",
        "",
        comparison.per_start(),
        "",
    ]
    if notes:
        parts += ["## Notes", "", *[f"- {n}" for n in notes], ""]
    return "\n".join(parts)
