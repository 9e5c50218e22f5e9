"""The cells every kernel (and the engine-alone floor) runs, in order, and where they are measured.

One start runs, in this order:

1. ``1 + 1`` — the first cell (start → its result is the headline start-up figure);
2. ``warm`` × ``1 + 1``; ``warm`` × a new function; ``warm`` × a new class (names unique per start);
3. the error cell ``asdf⏎println(foo)`` (two unresolved references);
4. ``1 + 1`` until ``total`` cells have run (the trivial tail, over which RSS growth per cell is measured).

RSS and CPU are sampled at phase boundaries and after cell 50 (when ``total`` ≥ 50).
"""

from __future__ import annotations

from dataclasses import dataclass

TRIVIAL = "1 + 1"
TRIVIAL_RESULT = "2"
ERROR_CELL = "asdf\nprintln(foo)"
RSS_CELL = 50

#: Phases in execution order; each is a run of consecutive cells.
FIRST = "first"
WARM_EXPR = "warm_expr"
WARM_FUN = "warm_fun"
WARM_CLASS = "warm_class"
ERROR = "error"
TAIL = "tail"
PHASES: tuple[str, ...] = (FIRST, WARM_EXPR, WARM_FUN, WARM_CLASS, ERROR, TAIL)


def function_cell(i: int) -> str:
    return f"fun perfFun{i}(x: Int): Int = x * {i} + 1"


def class_cell(i: int) -> str:
    return f"class PerfClass{i}(val x: Int) {{ fun twice() = x * 2 }}"


@dataclass(frozen=True)
class Cell:
    """One cell: its 1-based position in the start, its phase, its code and the text/plain result expected."""

    number: int
    phase: str
    code: str
    expected: str | None  # None: no value expected (a declaration, or the error cell)
    expect_error: bool = False


@dataclass(frozen=True)
class Workload:
    warm: int = 30
    total: int = 200

    def __post_init__(self) -> None:
        if self.warm < 1:
            raise ValueError("--cells must be at least 1")
        if self.total < self.minimum_total:
            raise ValueError(f"--total must be at least {self.minimum_total} (1 + 3 × cells + the error cell)")

    @property
    def minimum_total(self) -> int:
        return 1 + 3 * self.warm + 1

    @property
    def error_number(self) -> int:
        return 1 + 3 * self.warm + 1

    def cells(self) -> list[Cell]:
        cells: list[Cell] = [Cell(1, FIRST, TRIVIAL, TRIVIAL_RESULT)]

        def add(phase: str, code: str, expected: str | None, expect_error: bool = False) -> None:
            cells.append(Cell(len(cells) + 1, phase, code, expected, expect_error))

        for _ in range(self.warm):
            add(WARM_EXPR, TRIVIAL, TRIVIAL_RESULT)
        for i in range(1, self.warm + 1):
            add(WARM_FUN, function_cell(i), None)
        for i in range(1, self.warm + 1):
            add(WARM_CLASS, class_cell(i), None)
        add(ERROR, ERROR_CELL, None, expect_error=True)
        while len(cells) < self.total:
            add(TAIL, TRIVIAL, TRIVIAL_RESULT)
        return cells

    def sample_after(self) -> set[int]:
        """Cell numbers after which RSS and CPU are sampled: every phase's last cell, and cell 50."""
        last_of_phase = {cell.phase: cell.number for cell in self.cells()}  # phases are consecutive runs
        return set(last_of_phase.values()) | ({RSS_CELL} if self.total >= RSS_CELL else set())
