"""A run as a long MCP request: progress while it runs, so that a client does not give up on a long cell, and its
cancellation interrupting the cell rather than leaving it running with nobody waiting."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context

T = TypeVar("T")

#: Characters of the last printed line a progress message quotes.
LINE_LIMIT = 120

#: Seconds between progress notifications: well inside the usual clients' request timeouts (60 s or more), which a
#: client that resets its timeout on progress (as the TypeScript SDK's resetTimeoutOnProgress) then never reaches.
PROGRESS_SECONDS = 1.0


class LastLine:
    """The last non-blank line a run printed, for its progress messages; fed by the run's thread, read by the
    progress task (one reference assignment at a time)."""

    def __init__(self) -> None:
        self.line: str | None = None
        self._unfinished = ""

    def printed(self, stream: str, text: str) -> None:
        *finished, self._unfinished = (self._unfinished + text).split("\n")
        lines = [line for line in finished if line.strip()]
        if lines:
            line = lines[-1]
            self.line = line if len(line) <= LINE_LIMIT else line[:LINE_LIMIT] + "…"

    def message(self, seconds: float) -> str:
        running = f"running for {seconds:.0f} s"
        return running if self.line is None else f"{running}; last printed: {self.line}"


async def while_running(
    ctx: Context, call: Callable[[threading.Event], T], interrupt: Callable[[], object], printed: LastLine
) -> T:
    """Calls ``call`` on a worker thread, reporting progress (the seconds it has run, and the last line ``printed``
    holds) every :data:`PROGRESS_SECONDS` while it runs. Cancelled (the client cancelled the request), it sets the
    event ``call`` was given, so that a call still waiting for its turn does not start, and calls ``interrupt`` for
    one that started, then lets the cancellation go on."""
    withdrawn = threading.Event()
    started = anyio.current_time()

    async def report() -> None:
        while True:
            await anyio.sleep(PROGRESS_SECONDS)
            seconds = anyio.current_time() - started
            await ctx.report_progress(round(seconds, 1), None, printed.message(seconds))

    async with anyio.create_task_group() as progress:
        progress.start_soon(report)
        try:
            result = await anyio.to_thread.run_sync(call, withdrawn, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            withdrawn.set()
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(interrupt)
            raise
        finally:
            progress.cancel_scope.cancel()
    return result
