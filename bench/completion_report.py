"""Completion latency, the pure part: the cases, what a reply offers, the per-start records and the markdown section
of bench/RESULTS.md that bench/completion.py writes (see bench/README.md)."""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

OURS = "ours"
ANCHOR = "anchor"
KINDS = (OURS, ANCHOR)
HEADING = "## Completion"
TARGET_SECONDS = 0.3  # issue 13: median completion reply on a warm kernel

SETUP_CELLS = (
    "val xs = listOf(1, 2, 3)",
    "data class P(val name: String, val age: Int)",
    'val p = P("a", 1)',
    "fun greet(name: String, times: Int = 1) = name.repeat(times)",
    'val s = "text"',
    'val f = java.io.File("x")',
)


@dataclass(frozen=True)
class Case:
    """Code completed with the cursor at its end; ``expected`` names must be offered, ``absent`` ones must not."""

    code: str
    expected: tuple[str, ...]
    absent: tuple[str, ...] = ()


CASES = (
    Case("listOf(1).ma", ("map", "mapIndexed")),
    Case("xs.", ("map", "filter", "joinToString"), absent=("add",)),  # a read-only List has no add
    Case("xs.fi", ("filter", "first")),
    Case("s.up", ("uppercase",)),
    Case("p.", ("name", "age", "copy")),
    Case("f.", ("name", "exists")),  # a Java getter is offered as a Kotlin property
    Case("xs.map { it.to", ("toString", "toLong")),
    Case("gre", ("greet",)),
    Case('greet("a", ti', ("times",)),  # the named argument, `times =` or `times`
    Case("pri", ("println", "print")),
    Case("Math.", ("max", "sqrt")),
    Case("xs.filter { it > 1 }.", ("map", "sum")),
)

#: The cell running while the probe's completion and control requests are sent; its output marks that it runs.
SLEEP_CELL = 'println("sleeping"); Thread.sleep(3000); "slept"'
SLEEP_MARKER = "sleeping"
SLEEP_RESULT = "slept"
SLEEP_SECONDS = 3.0
MARKER_WAIT_SECONDS = 1.5  # a kernel that shows the output only at the end gets the requests this late instead
CONTROL_TIMEOUT_SECONDS = 10.0  # "at once"; a kernel that never answers on control costs this much per start
PROBE_CASE = Case("xs.fi", ("filter", "first"))

_IDENTIFIER_AT_END = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def token_start(code: str) -> int:
    """Where the name being completed begins: the identifier before the end of ``code``, or the end itself."""
    found = _IDENTIFIER_AT_END.search(code)
    return found.start() if found else len(code)


def offered_names(code: str, reply: Mapping[str, Any]) -> set[str]:
    """The names a complete_reply offers for ``code`` (cursor at its end), whatever each kernel puts in a match.

    A match replaces ``code[cursor_start:cursor_end]``, and kernels differ in where they start it (``map`` or
    ``xs.map``) and what they append (``map(``, ``times = ``): the name is the identifier that the completed text
    has where the completed token began.
    """
    start = token_start(code)
    cursor_start = reply.get("cursor_start")
    cursor_start = cursor_start if isinstance(cursor_start, int) and 0 <= cursor_start <= len(code) else len(code)
    names: set[str] = set()
    for match in reply.get("matches") or []:
        found = _IDENTIFIER.match(code[:cursor_start] + str(match), start)
        if found:
            names.add(found.group(0))
    return names


def check(case: Case, names: set[str]) -> tuple[list[str], list[str]]:
    """(expected names not offered, absent names offered)."""
    return [n for n in case.expected if n not in names], [n for n in case.absent if n in names]


@dataclass
class CaseRun:
    """One case on one start: the latency of each repeat (None: no reply in time) and the last reply's content."""

    code: str
    seconds: list[float | None] = field(default_factory=list)
    matches: int | None = None
    missing: list[str] = field(default_factory=list)
    unwanted: list[str] = field(default_factory=list)

    @property
    def first(self) -> float | None:
        return self.seconds[0] if self.seconds else None

    @property
    def warm(self) -> list[float]:
        """The repeats after the first (the first alone when there is one repeat), those that got a reply."""
        rest = self.seconds[1:] or self.seconds[:1]
        return [s for s in rest if s is not None]


@dataclass
class Probe:
    """A completion and a control kernel_info sent while :data:`SLEEP_CELL` runs; times in seconds."""

    cell_alone: float | None = None  # the same cell just before, with nothing sent meanwhile
    sent_into_cell: float | None = None  # after the execute_request, when both were sent
    marker_seen: bool = False  # the cell's output was seen before sending (else: sent after a fixed delay)
    completion: float | None = None  # complete_request → reply
    after_cell_end: float | None = None  # complete_reply's arrival − execute_reply's (< 0: while the cell ran)
    completion_matches: int | None = None
    control: float | None = None  # kernel_info_request on control → reply
    cell: float | None = None  # execute_request → execute_reply
    cell_status: str | None = None
    cell_result: str | None = None

    @property
    def cell_normal(self) -> bool:
        """The cell ended as it would alone: ok, its result shown, and not cut short."""
        return (
            self.cell_status == "ok"
            and SLEEP_RESULT in (self.cell_result or "")
            and self.cell is not None
            and self.cell >= SLEEP_SECONDS
        )


@dataclass
class Start:
    kind: str
    index: int
    cases: list[CaseRun] = field(default_factory=list)
    probe: Probe | None = None
    info: dict[str, str] = field(default_factory=dict)
    failure: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def summary(values: Sequence[float]) -> tuple[float, float, float] | None:
    """(median, min, max), or None without values."""
    return (statistics.median(values), min(values), max(values)) if values else None


def seconds_text(values: Sequence[float], spread: bool = True) -> str:
    found = summary(values)
    if found is None:
        return "–"
    middle, low, high = found
    return f"{middle:.3f} [{low:.3f}–{high:.3f}]" if spread and len(values) > 1 else f"{middle:.3f}"


def ratio_text(ours: Sequence[float], anchor: Sequence[float]) -> str:
    if not ours or not anchor or statistics.median(anchor) <= 0:
        return "–"
    return f"{statistics.median(ours) / statistics.median(anchor):.2g}×"  # 2 digits: ours may be 100× faster


def _runs(starts: Iterable[Start], kind: str, code: str) -> list[CaseRun]:
    return [run for start in starts if start.kind == kind for run in start.cases if run.code == code]


def per_start_medians(runs: Iterable[CaseRun]) -> list[float]:
    return [statistics.median(run.warm) for run in runs if run.warm]


def found_text(runs: Sequence[CaseRun]) -> str:
    """``yes`` when every start offered every expected name and none of the absent ones, else what went wrong."""
    if not runs or all(run.matches is None for run in runs):
        return "–"
    missing = dict.fromkeys(name for run in runs for name in run.missing)
    unwanted = dict.fromkeys(name for run in runs for name in run.unwanted)
    if not missing and not unwanted:
        return "yes"
    return "no: " + ", ".join([*(f"−{n}" for n in missing), *(f"+{n}" for n in unwanted)])


def matches_text(runs: Sequence[CaseRun]) -> str:
    counts = [run.matches for run in runs if run.matches is not None]
    return "–" if not counts else f"{statistics.median(counts):g}"


def case_rows(starts: Sequence[Start], cases: Sequence[Case]) -> list[str]:
    lines = [
        "| case | ours median [min–max], s | anchor median [min–max], s | ours/anchor | first ours / anchor, s "
        "| matches ours / anchor | expected found ours / anchor |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for case in cases:
        ours, anchor = _runs(starts, OURS, case.code), _runs(starts, ANCHOR, case.code)
        ours_medians, anchor_medians = per_start_medians(ours), per_start_medians(anchor)
        firsts = [seconds_text([r.first for r in runs if r.first is not None], spread=False) for runs in (ours, anchor)]
        lines.append(
            f"| `{case.code}` | {seconds_text(ours_medians)} | {seconds_text(anchor_medians)} "
            f"| {ratio_text(ours_medians, anchor_medians)} | {firsts[0]} / {firsts[1]} "
            f"| {matches_text(ours)} / {matches_text(anchor)} | {found_text(ours)} / {found_text(anchor)} |"
        )
    return lines


def overall(starts: Sequence[Start], kind: str) -> list[float]:
    """Every warm reply of ``kind``: all cases, all starts."""
    return [s for start in starts if start.kind == kind for run in start.cases for s in run.warm]


def timeouts(starts: Sequence[Start], kind: str) -> int:
    return sum(s is None for start in starts if start.kind == kind for run in start.cases for s in run.seconds)


def probe_rows(starts: Sequence[Start]) -> list[str]:
    lines = [
        "| kernel | completion reply − cell end, s | completion latency, s | control kernel_info, s "
        "| cell alone, s | cell with the requests, s | cell completed normally | requests sent into the cell, s "
        "| matches during the cell / idle |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for kind in KINDS:
        probes = [start.probe for start in starts if start.kind == kind and start.probe is not None]
        if not probes:
            continue

        def column(name: str, probes: list[Probe] = probes) -> str:
            values = [v for p in probes if (v := getattr(p, name)) is not None]
            lost = len(probes) - len(values)
            return seconds_text(values) + (f" (no reply: {lost}/{len(probes)})" if lost else "")

        normal = sum(p.cell_normal for p in probes)
        seen = sum(p.marker_seen for p in probes)
        during = [p.completion_matches for p in probes if p.completion_matches is not None]
        during_text = f"{statistics.median(during):g}" if during else "–"
        idle = matches_text(_runs(starts, kind, PROBE_CASE.code))
        lines.append(
            f"| {kind} | {column('after_cell_end')} | {column('completion')} | {column('control')} "
            f"| {column('cell_alone')} | {column('cell')} | {normal}/{len(probes)} "
            f"| {column('sent_into_cell')} (output seen first: {seen}/{len(probes)}) | {during_text} / {idle} |"
        )
    return lines


def render(
    starts: Sequence[Start],
    cases: Sequence[Case],
    command: str,
    context: Sequence[tuple[str, str]],
    notes: Sequence[str],
) -> str:
    """The "Completion" section of bench/RESULTS.md."""
    repeats = max((len(run.seconds) for start in starts for run in start.cases), default=0)
    lines = [HEADING, "", f"`{command}`", "", *(f"- {name}: {value}" for name, value in context), ""]
    lines += [
        f"Each start: the setup cells {', '.join(f'`{c}`' for c in SETUP_CELLS)}; then each case {repeats} times in a "
        "row, a `complete_request` with the cursor at the end of the code, timed from sending it to its "
        "`complete_reply`. *Median*: per start the median of the repeats after the first, then the median "
        "[min–max] of those over the starts; *first*: the first repeat (median over the starts). *Matches*: "
        "the number of matches of the last reply; *expected found*: every expected name offered (and none marked "
        "`+`, which must not be).",
        "",
        *case_rows(starts, cases),
        "",
    ]
    for kind in KINDS:
        warm = overall(starts, kind)
        if warm:
            met = "met" if statistics.median(warm) <= TARGET_SECONDS else "not met"
            verdict = f" (target ≤ {TARGET_SECONDS:g} s: {met})"
            lost = timeouts(starts, kind)
            lost_text = f"; {lost} request(s) without a reply in time" if lost else ""
            lines.append(
                f"- overall median, {kind}: **{statistics.median(warm):.3f} s** over {len(warm)} warm replies"
                f"{verdict if kind == OURS else ''}{lost_text}"
            )
    lines += [
        "",
        f"While a cell runs: `{SLEEP_CELL}` is sent on shell; once its output `{SLEEP_MARKER}` arrives (or "
        f"{MARKER_WAIT_SECONDS:g} s after sending it, if none came), a `complete_request` for `{PROBE_CASE.code}` on "
        "shell and a `kernel_info_request` on control. *Completion reply − cell end*: when the completion's reply "
        "arrived relative to the cell's `execute_reply` (negative: while the cell ran, i.e. not blocked by it); "
        f"*control kernel_info*: its reply within {CONTROL_TIMEOUT_SECONDS:g} s, else none; *cell alone*: the same "
        "cell just before, nothing sent meanwhile (request → reply); *completed normally*: status ok, result "
        f"`{SLEEP_RESULT}`, and not shorter than {SLEEP_SECONDS:g} s; *matches*: the completion's, and the same case's "
        "on the idle kernel (above). Median [min–max] over the starts.",
        "",
        *probe_rows(starts),
        "",
    ]
    if notes:
        lines += ["Notes:", "", *(f"- {note}" for note in notes), ""]
    return "\n".join(lines)


def replace_section(document: str, heading: str, section: str) -> str:
    """``document`` with the section under ``heading`` (up to the next heading of its level or above) replaced by
    ``section``, or with ``section`` appended when it has none; the other sections are kept as they are."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = document.splitlines(keepends=True)
    begin = next((i for i, line in enumerate(lines) if line.rstrip() == heading), None)
    body = section.rstrip("\n") + "\n"
    if begin is None:
        return (document.rstrip("\n") + "\n\n" if document.strip() else "") + body

    end, fenced = len(lines), False
    for i in range(begin + 1, len(lines)):
        line = lines[i]
        fenced ^= line.startswith("```")  # a `# comment` in a code block is no heading
        marks = len(line) - len(line.lstrip("#"))
        if not fenced and 0 < marks <= level and line[marks : marks + 1] == " ":
            end = i
            break
    after = "".join(lines[end:])
    return "".join(lines[:begin]) + body + ("\n" + after if after else "")
