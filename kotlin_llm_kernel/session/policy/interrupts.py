"""Ending an interrupted snippet: the engine's cancellation first, then stopping its thread where it ignores that.

The cancellation ends sleeps, waits, ``await`` and the snippets' own loops at once. A loop inside JDK or library
code ignores it; the session's thread is then stopped (:mod:`.jvmti`) while the snippet is evaluated, a few times
for code that catches what is thrown. What cannot be stopped at all (native code, a monitor never released) is
reported with where it runs, so the cell can end and the next one can say the session is busy.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ...jvm.jvm import started_jvm
from ..errors import NOT_RUN, SESSION_BUSY, SNIPPET_NOT_STOPPED
from ..jvmti import StopUnavailable, ThreadStopper, stopper_for
from ..results import Error

log = logging.getLogger(__name__)

#: Seconds the engine's cancellation gets before the thread is stopped: it ends what listens to it within a few ms.
STOP_AFTER = 0.5
#: Seconds between stops, for code that catches the stop's error and goes on.
STOP_EVERY = 0.25
#: Seconds after the interrupt when a snippet still running is reported as unstoppable.
GIVE_UP_AFTER = 1.5
#: Frames named in the report of a snippet that could not be stopped.
REPORTED_FRAMES = 8


class Interruptible(Protocol):
    """What :func:`interrupt` needs of a submitted snippet (:class:`.bridge.Execution` has it)."""

    @property
    def snippet_number(self) -> int: ...

    @property
    def evaluating(self) -> bool: ...

    @property
    def not_run_evalue(self) -> str:
        """The engine's words for a snippet cancelled while it compiled (``HostExecution.NOT_RUN``)."""
        ...

    def cancel(self) -> None: ...

    def await_settled(self, timeout: float) -> bool: ...

    def stop(self, stopper: ThreadStopper) -> bool: ...

    def top_frames(self, limit: int) -> list[str]: ...


@dataclass(frozen=True)
class Unstoppable:
    """A snippet still running after its interrupt: where it runs, and whether it was still compiling."""

    snippet_number: int
    frames: tuple[str, ...]
    compiling: bool


def thread_stopper() -> ThreadStopper | None:
    """The running JVM's thread stopper; None when it cannot stop threads (logged once). Call it from a thread that
    has called Java: ``GetEnv`` of a thread the JVM does not know crashes HotSpot."""
    jvm = started_jvm()
    return None if jvm is None else stopper_for(jvm.java.libjvm)


def interrupt(
    execution: Interruptible,
    find_stopper: Callable[[], ThreadStopper | None],
    clock: Callable[[], float] = time.monotonic,
) -> Unstoppable | None:
    """Cancels ``execution`` and, while it keeps running, stops its thread with the stopper ``find_stopper`` gives;
    blocks up to :data:`GIVE_UP_AFTER` by ``clock`` (seconds), waiting in ``execution.await_settled``.

    Returns None once the snippet settled, else what keeps it running (it may still end later).
    """
    started = clock()
    execution.cancel()
    if execution.await_settled(STOP_AFTER):
        return None
    # only now: the JNI calls need a thread attached to the JVM, which the calls above made sure of
    stopper = find_stopper()
    while (remaining := started + GIVE_UP_AFTER - clock()) > 0:
        if stopper is not None:
            try:
                if execution.stop(stopper):
                    log.info("stopped the thread of snippet%s.kts", execution.snippet_number)
            except StopUnavailable as error:
                log.warning("the thread of snippet%s.kts could not be stopped: %s", execution.snippet_number, error)
                stopper = None
        if execution.await_settled(min(STOP_EVERY, remaining)):
            return None
    if execution.await_settled(0):
        return None
    frames = tuple(execution.top_frames(REPORTED_FRAMES))
    return Unstoppable(execution.snippet_number, frames, compiling=not execution.evaluating)


_WAY_OUT = "interrupt again to retry, or restart the kernel to go on at once (the session's state is lost)"


def _error(ename: str, evalue: str, lines: list[str], snippet_number: int = 0, not_run: bool = False) -> Error:
    message = "\n".join([f"{ename}: {evalue}", *lines])
    return Error("EVALUATION", message, ename, evalue, not_run=not_run, snippet_number=snippet_number)


def _frames(frames: tuple[str, ...]) -> list[str]:
    return [f"  at {frame}" for frame in frames]


def interrupted_cell_error(report: Unstoppable, not_run_evalue: str) -> Error:
    """The error of a cell whose snippet goes on after its interrupt: it compiles (the engine's ``not_run_evalue``
    says it will not run, as the engine's own error would; what follows from it is decided on the fact,
    :attr:`.results.Error.not_run`), or it could not be stopped."""
    if report.compiling:
        return _error(NOT_RUN, not_run_evalue, [], report.snippet_number, not_run=True)
    evalue = f"snippet{report.snippet_number}.kts did not stop when interrupted and runs on"
    lines = [*_frames(report.frames), f"Later cells fail until it ends: {_WAY_OUT}."]
    return _error(SNIPPET_NOT_STOPPED, evalue, lines, report.snippet_number)


def busy_error(snippet_number: int, frames: tuple[str, ...]) -> Error:
    """The error of a cell submitted while an earlier snippet that could not be stopped still runs (snippet
    ``snippet_number``); the cell is not submitted and gets no number."""
    evalue = f"the session still runs snippet{snippet_number}.kts, which did not stop when interrupted"
    lines = [*_frames(frames), f"This cell did not run: {_WAY_OUT}."]
    return _error(SESSION_BUSY, evalue, lines)
