"""Running the workload's cells against anything that executes a cell (a Jupyter kernel, or the engine alone)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from measure import CellTiming, Sample, StartRecord, Usage
from workload import Cell, Workload


@dataclass(frozen=True)
class CellOutcome:
    seconds: float  # request sent → reply received
    finished: float  # time.monotonic() when the reply arrived
    status: str  # "ok" or "error"
    text: str | None  # the text/plain result, if any
    traceback: list[str] | None  # the error's traceback lines (kernels) or report lines (floor)


class CellTimeout(Exception):
    """No reply within the cell timeout: the session is considered wedged."""


class Executor(Protocol):
    def execute(self, code: str, timeout: float) -> CellOutcome: ...


def _problem(cell: Cell, outcome: CellOutcome) -> str | None:
    if cell.expect_error:
        return None if outcome.status == "error" else f"expected an error, got status {outcome.status}"
    if outcome.status != "ok":
        first = (outcome.traceback or ["?"])[0]
        return f"unexpected error: {first[:200]}"
    if cell.expected is not None and (outcome.text or "").strip() != cell.expected:
        return f"expected {cell.expected!r}, got {outcome.text!r}"
    return None


def run_cells(
    record: StartRecord,
    workload: Workload,
    executor: Executor,
    sample: Callable[[], Usage],
    started: float,
    cell_timeout: float,
    on_sample: Callable[[str], None] | None = None,
) -> None:
    """Runs every cell in order, filling ``record``; stops at the first timeout or failure of the executor.

    ``started`` is the ``time.monotonic()`` of the start; samples are taken after the cells of
    :meth:`Workload.sample_after`, once the cell's reply (and, for kernels, its output) has arrived; then
    ``on_sample(label)`` may record more (outside every timed interval).
    """
    sample_after = workload.sample_after()
    for cell in workload.cells():
        try:
            outcome = executor.execute(cell.code, cell_timeout)
        except CellTimeout as error:
            record.cells.append(CellTiming(cell.number, cell.phase, None, str(error)))
            record.failure = f"cell {cell.number} ({cell.phase}): {error}"
            return
        except Exception as error:  # noqa: BLE001 - a dead kernel or engine: recorded, the benchmark goes on
            record.cells.append(CellTiming(cell.number, cell.phase, None, f"{type(error).__name__}: {error}"))
            record.failure = f"cell {cell.number} ({cell.phase}): {type(error).__name__}: {error}"
            return
        record.cells.append(CellTiming(cell.number, cell.phase, outcome.seconds, _problem(cell, outcome)))
        if cell.number == 1:
            record.first_result_s = outcome.finished - started
        if cell.expect_error and outcome.traceback is not None:
            record.error_traceback_bytes = len("\n".join(outcome.traceback).encode("utf-8"))
            record.error_traceback_lines = len("\n".join(outcome.traceback).splitlines())
        if cell.number in sample_after:
            usage = sample()
            record.samples.append(
                Sample(f"cell{cell.number}", time.monotonic() - started, usage.rss_bytes, usage.cpu_seconds)
            )
            if on_sample is not None:
                on_sample(f"cell{cell.number}")
