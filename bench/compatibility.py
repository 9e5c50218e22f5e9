"""Notebook compatibility, the pure part: which cells use kernel-specific API, what each cell's outcome was on each
kernel, and the markdown report comparing them ("here" is ours, "there" the anchor, JetBrains' kernel)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

OURS = "ours"
ANCHOR = "anchor"

#: A kernel magic or command of JetBrains' kernel: ``%use dataframe``, ``%trackClasspath``, ``:help``. Only at the
#: line's first column and followed by a letter, because a Kotlin line may start with ``:`` too (an indented
#: ``: Base()`` continuing a class header).
MAGIC_LINE = re.compile(r"^[%:][A-Za-z]", re.MULTILINE)

#: Calls and names of JetBrains' notebook API (displays, renderers, the ``notebook`` object, its library
#: integrations and dependency annotations): a cell using one is not ordinary Kotlin, whether or not a kernel offers
#: the same name. A name must not follow a letter, digit, ``_`` or ``.`` (``BufferedImage(``, ``x.display(`` are
#: ordinary Kotlin).
DISPLAY_API = (
    "DISPLAY(",
    "UPDATE_DISPLAY(",
    "HTML(",
    "MIME(",
    "LATEX(",
    "JSON(",
    "Image(",
    "display(",
    "clearOutput(",
    "USE {",
    "USE(",
    "render<",
    "notebook.",
    "Renderable",
    "MimeTypedResult",
    "DisplayResult",
    "org.jetbrains.kotlinx.jupyter",
    "@file:DependsOn",
    "@file:Repository",
)

_DISPLAY_API = re.compile("|".join(rf"(?<![\w.]){re.escape(name)}" for name in DISPLAY_API))
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
ERROR_LINE_LIMIT = 200


def kernel_features(source: str) -> tuple[str, ...]:
    """What of a kernel's own API ``source`` uses: the first word of its magic lines, then the :data:`DISPLAY_API`
    names it contains, each once and in order of appearance; empty for ordinary Kotlin."""
    found: list[str] = []
    for line in source.splitlines():
        if MAGIC_LINE.match(line):
            found.append(line.split()[0])
    found += [match.group(0) for match in _DISPLAY_API.finditer(source)]
    return tuple(dict.fromkeys(found))


def first_line(source: str) -> str:
    """The first non-blank line of ``source``, stripped (what identifies a cell in the report)."""
    return next((line.strip() for line in source.splitlines() if line.strip()), "")


def error_line(ename: str | None, evalue: str | None, traceback: Sequence[str] | None) -> str:
    """One line saying what failed: ``ename: <evalue's first line>``, else the traceback's first non-blank line.

    ANSI colours are removed and the line is cut at :data:`ERROR_LINE_LIMIT` characters.
    """
    value = first_line(_ANSI.sub("", evalue or ""))
    name = _ANSI.sub("", ename or "").strip()
    if name and value:
        text = f"{name}: {value}"
    elif name or value:
        text = name or value
    else:
        text = first_line(_ANSI.sub("", "\n".join(traceback or []))) or "(no error text)"
    return text if len(text) <= ERROR_LINE_LIMIT else text[: ERROR_LINE_LIMIT - 1] + "…"


@dataclass(frozen=True)
class Cell:
    """A non-empty code cell: ``number`` counts the notebook's code cells from 1 (empty ones included)."""

    number: int
    source: str

    @property
    def features(self) -> tuple[str, ...]:
        return kernel_features(self.source)


def read_cells(notebook: Path) -> list[Cell]:
    """The code cells of an .ipynb file with any code in them, in order."""
    data = json.loads(notebook.read_text(encoding="utf-8"))
    cells: list[Cell] = []
    number = 0
    for cell in data.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        number += 1
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else str(source)
        if text.strip():
            cells.append(Cell(number, text))
    return cells


OK = "ok"
ERROR = "error"
TIMEOUT = "timeout"


@dataclass(frozen=True)
class CellResult:
    number: int
    status: str  # OK, ERROR or TIMEOUT
    error: str | None = None  # ERROR, TIMEOUT: one line (see error_line)
    seconds: float | None = None


@dataclass
class NotebookRun:
    """One notebook's cells run in order on one fresh kernel (restarted only when a cell left it wedged or dead)."""

    notebook: str
    kernel: str  # OURS or ANCHOR
    results: list[CellResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # restarts, a kernel that would not start

    def status(self, number: int) -> str | None:
        return next((r.status for r in self.results if r.number == number), None)

    def error(self, number: int) -> str | None:
        return next((r.error for r in self.results if r.number == number), None)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NotebookRun:
        return cls(
            data["notebook"], data["kernel"], [CellResult(**r) for r in data.get("results", [])], data.get("notes", [])
        )


@dataclass(frozen=True)
class Row:
    """One notebook's counts; a kernel not run counts None."""

    notebook: str
    cells: int
    kernel_api: int  # cells using magics or the display API
    ok_here: int | None
    ok_there: int | None
    ok_both: int | None
    only_there: int | None
    only_here: int | None


@dataclass(frozen=True)
class Gap:
    """A cell that succeeds there but not here."""

    notebook: str
    cell: Cell
    status: str  # here: ERROR or TIMEOUT
    error: str  # here


@dataclass
class Comparison:
    """The cells of each notebook and its runs on each kernel."""

    cells: dict[str, list[Cell]]  # notebook name → cells, in the order given
    runs: list[NotebookRun]

    def run(self, notebook: str, kernel: str) -> NotebookRun | None:
        return next((r for r in self.runs if r.notebook == notebook and r.kernel == kernel), None)

    def _ok(self, notebook: str, kernel: str) -> set[int] | None:
        run = self.run(notebook, kernel)
        return None if run is None else {r.number for r in run.results if r.status == OK}

    def row(self, notebook: str) -> Row:
        cells = self.cells[notebook]
        here, there = self._ok(notebook, OURS), self._ok(notebook, ANCHOR)
        both = here & there if here is not None and there is not None else None
        return Row(
            notebook,
            len(cells),
            sum(1 for c in cells if c.features),
            None if here is None else len(here),
            None if there is None else len(there),
            None if both is None else len(both),
            None if both is None or there is None else len(there - both),
            None if both is None or here is None else len(here - both),
        )

    def rows(self) -> list[Row]:
        return [self.row(notebook) for notebook in self.cells]

    def total(self) -> Row:
        rows = self.rows()

        def add(values: Iterable[int | None]) -> int | None:
            listed = list(values)
            return None if not listed or any(v is None for v in listed) else sum(v for v in listed if v is not None)

        return Row(
            "all",
            sum(r.cells for r in rows),
            sum(r.kernel_api for r in rows),
            add(r.ok_here for r in rows),
            add(r.ok_there for r in rows),
            add(r.ok_both for r in rows),
            add(r.only_there for r in rows),
            add(r.only_here for r in rows),
        )

    def gaps(self, *, kernel_api: bool) -> list[Gap]:
        """Cells that succeed there but fail or time out here, among those that use the kernel's own API
        (``kernel_api``) or those that do not (the issue's goal: none of those)."""
        found: list[Gap] = []
        for notebook, cells in self.cells.items():
            here, there = self.run(notebook, OURS), self.run(notebook, ANCHOR)
            if here is None or there is None:
                continue
            for cell in cells:
                status = here.status(cell.number)
                if there.status(cell.number) != OK or status in (OK, None) or bool(cell.features) != kernel_api:
                    continue
                found.append(Gap(notebook, cell, status or ERROR, here.error(cell.number) or ""))
        return found

    def compared(self) -> bool:
        """Whether some notebook ran on both kernels."""
        return any(self.run(n, OURS) is not None and self.run(n, ANCHOR) is not None for n in self.cells)

    def failures(self, kernel: str) -> list[tuple[str, Cell, str]]:
        """Cells that failed or timed out on ``kernel``: (notebook, cell, the error)."""
        found: list[tuple[str, Cell, str]] = []
        for notebook, cells in self.cells.items():
            run = self.run(notebook, kernel)
            if run is None:
                continue
            for cell in cells:
                status, error = run.status(cell.number), run.error(cell.number) or ""
                if status not in (OK, None):
                    found.append((notebook, cell, error if status == ERROR else f"timeout: {error}"))
        return found

    def only_here(self) -> list[tuple[str, Cell, str]]:
        """Cells that succeed here but not there: (notebook, cell, the anchor's error)."""
        found: list[tuple[str, Cell, str]] = []
        for notebook, cells in self.cells.items():
            here, there = self.run(notebook, OURS), self.run(notebook, ANCHOR)
            if here is None or there is None:
                continue
            for cell in cells:
                if here.status(cell.number) == OK and there.status(cell.number) not in (OK, None):
                    found.append((notebook, cell, there.error(cell.number) or ""))
        return found


def _count(value: int | None) -> str:
    return "–" if value is None else str(value)


def _code(text: str) -> str:
    """``text`` as inline code in a table cell (pipes escaped, backticks doubled around if it has any)."""
    text = text.replace("|", "\\|")
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def table(comparison: Comparison) -> list[str]:
    lines = [
        "| notebook | cells | magic / display API | ok here | ok there | ok both | only there | only here |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in [*comparison.rows(), comparison.total()]:
        name = f"**{row.notebook}**" if row.notebook == "all" else row.notebook
        counts = [row.cells, row.kernel_api, row.ok_here, row.ok_there, row.ok_both, row.only_there, row.only_here]
        lines.append(f"| {name} | " + " | ".join(_count(c) for c in counts) + " |")
    return lines


def _gap_lines(gaps: Sequence[Gap], with_features: bool) -> list[str]:
    if not gaps:
        return ["None."]
    header = "| notebook | cell | first line | our error |"
    rule = "|---|---:|---|---|"
    if with_features:
        header, rule = header + " uses |", rule + "---|"
    lines = [header, rule]
    for gap in gaps:
        error = gap.error if gap.status == ERROR else f"timeout: {gap.error}"
        line = f"| {gap.notebook} | {gap.cell.number} | {_code(first_line(gap.cell.source))} | {_code(error)} |"
        if with_features:
            line += " " + ", ".join(_code(f) for f in gap.cell.features) + " |"
        lines.append(line)
    return lines


def _cell_lines(cells: Sequence[tuple[str, Cell, str]], error_header: str) -> list[str]:
    if not cells:
        return ["None."]
    lines = [f"| notebook | cell | first line | {error_header} |", "|---|---:|---|---|"]
    lines += [f"| {n} | {c.number} | {_code(first_line(c.source))} | {_code(e)} |" for n, c, e in cells]
    return lines


def render(comparison: Comparison, command: str, context: Sequence[tuple[str, str]]) -> str:
    """The markdown report: context, the table per notebook, then the cells that succeed only there (ordinary
    Kotlin first: the list that must become empty) and those that succeed only here."""
    lines = ["# Notebook compatibility: ours (here) and JetBrains' kernel (there), cell by cell", ""]
    lines += [f"Command: `{command}`", ""]
    lines += [f"- {name}: {value}" for name, value in context]
    lines += [
        "",
        "Each notebook runs on a fresh kernel of each kind, every code cell in order, a failed cell not stopping the "
        "rest. *cells*: non-empty code cells; *magic / display API*: cells with a kernel magic or command, or a "
        "name of JetBrains' notebook API (`DISPLAY_API` in bench/compatibility.py); *only there*: ok there and "
        "failed or timed out here.",
        "",
        *table(comparison),
        "",
    ]
    notes = [f"{run.notebook}, {run.kernel}: {note}" for run in comparison.runs for note in run.notes]
    if notes:
        lines += ["Notes:", "", *(f"- {note}" for note in notes), ""]
    if not comparison.compared():
        kernel = OURS if any(run.kernel == OURS for run in comparison.runs) else ANCHOR
        failures = comparison.failures(kernel)
        lines += [
            f"Not compared: only {kernel} ran.",
            "",
            f"## Cells that fail on {kernel} ({len(failures)})",
            "",
            *_cell_lines(failures, "error"),
            "",
        ]
        return "\n".join(lines)
    ordinary = comparison.gaps(kernel_api=False)
    lines += [
        f"## Ordinary Kotlin that succeeds there and fails here ({len(ordinary)})",
        "",
        "Cells with no magic and no display API (the goal: none). *cell*: its number among the notebook's code cells.",
        "",
        *_gap_lines(ordinary, with_features=False),
        "",
    ]
    special = comparison.gaps(kernel_api=True)
    if special:
        lines += [
            f"## Cells with magics or the display API that succeed there and fail here ({len(special)})",
            "",
            *_gap_lines(special, with_features=True),
            "",
        ]
    only_here = comparison.only_here()
    if only_here:
        lines += [
            f"## Cells that succeed here and fail there ({len(only_here)})",
            "",
            *_cell_lines(only_here, "its error there"),
            "",
        ]
    return "\n".join(lines)
