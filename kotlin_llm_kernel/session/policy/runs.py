"""Running one snippet, for any host: its submission, its time limit, the escalation of its interrupt, a snippet that
could not be stopped (later ones then fail as busy), and the outcome to show.

:class:`Runs` (one per session) decides; its hosts drive it and show what it decided in their own way:

- the kernel, on its event loop: it schedules :meth:`Runs.check_time` with ``call_later`` after
  :meth:`Run.until_check`, carries interrupts out on their own thread (:meth:`Interrupt.start`, it blocks up to
  :data:`.interrupts.GIVE_UP_AFTER`) and hands the report back to :meth:`Runs.interrupted` on the loop;
- the Python API, synchronously on the caller's thread: it waits for its snippet's events
  :meth:`Run.until_check` at a time, and carries interrupts out in place (:meth:`Runs.interrupt_now`).

Each host calls everything but :meth:`Interrupt.carry_out` on one thread (the loop's, the caller's): the state here
has no lock.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

from ..events import SettledEvent
from ..jvmti import ThreadStopper
from ..results import Error
from .interrupts import Interruptible, Unstoppable, busy_error, interrupt, interrupted_cell_error, thread_stopper
from .time_limit_error import time_limit_outcome

_log = logging.getLogger(__name__)

#: Seconds between checks once a snippet's time is nearly up: its waits for input may have stopped its clock.
RECHECK_SECONDS = 0.25

StopperFinder = Callable[[], "ThreadStopper | None"]
Log: TypeAlias = "logging.Logger | logging.LoggerAdapter[Any]"


class Execution(Interruptible, Protocol):
    """What the policy needs of a submitted snippet: :class:`.bridge.Execution` has it, and so do the unit tests'
    doubles."""

    @property
    def run_seconds(self) -> float: ...


class Run:
    """A submitted snippet and its time limit (seconds by the engine's clock, :attr:`.bridge.Execution.run_seconds`;
    0: none): the setting's, or its ``own`` (given for this run alone)."""

    def __init__(self, execution: Execution, limit: float, own: bool = False) -> None:
        self.execution = execution
        self.limit = limit
        self.own_limit = own
        #: It reached its limit and was interrupted for it.
        self.timed_out = False
        #: A user's interrupt came first: the limit no longer applies.
        self._lifted = False
        self._checked = False

    @property
    def snippet_number(self) -> int:
        return self.execution.snippet_number

    def until_check(self) -> float | None:
        """Seconds until :meth:`Runs.check_time` is due: when the limit would be reached, then every
        :data:`RECHECK_SECONDS` at least while waits keep its clock still; None once no limit applies."""
        if self.limit <= 0 or self._lifted or self.timed_out:
            return None
        left = self.limit - self.execution.run_seconds
        return max(left, RECHECK_SECONDS) if self._checked else max(left, 0.0)

    def reached_limit(self) -> bool:
        """Checks its time now: whether it just reached the limit (it is then :attr:`timed_out`)."""
        if self.until_check() is None:
            return False
        self._checked = True
        self.timed_out = self.execution.run_seconds >= self.limit
        return self.timed_out

    def lift_limit(self) -> None:
        """A user's interrupt came: the limit no longer applies (one already reached stays so)."""
        self._lifted = True


@dataclass(frozen=True)
class Interrupt:
    """An interrupt begun (its snippet is cancelled) whose escalation is still to be carried out."""

    execution: Execution
    find_stopper: StopperFinder
    clock: Callable[[], float] = time.monotonic

    def carry_out(self) -> Unstoppable | None:
        """Stops the snippet's thread while it ignores its cancellation (:func:`.interrupts.interrupt`); blocks up to
        :data:`.interrupts.GIVE_UP_AFTER`. Any thread. None once it settled, else where it still runs."""
        return interrupt(self.execution, self.find_stopper, self.clock)

    def start(self, done: Callable[[Unstoppable | None], None]) -> None:
        """Carries it out on a daemon thread of its own (a hang must not keep the process alive), then calls
        ``done`` there with the report."""
        threading.Thread(target=lambda: done(self.carry_out()), name="kotlin-llm-interrupt", daemon=True).start()


@dataclass(frozen=True)
class Ended:
    """How a run ended, as its host shows it: the settled event with the outcome to show, and whether the time limit
    made it so."""

    settled: SettledEvent
    time_limit_exceeded: bool


class Runs:
    """The policy of a session's runs, and its state: the running snippet, the snippet that did not stop when
    interrupted (until it settles), the snippets whose interrupt is being carried out."""

    def __init__(
        self, find_stopper: StopperFinder = thread_stopper, log: Log = _log, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._find_stopper = find_stopper
        self._log = log  # the kernel's own log, where its other messages go
        self._clock = clock  # of the escalation's waits
        self.running: Run | None = None
        self._stuck: tuple[Execution, Unstoppable] | None = None
        self._interrupting: set[int] = set()

    def busy(self) -> Error | None:
        """The error of a snippet submitted now, while one that did not stop when interrupted still runs (where it
        runs now); None when the session is free."""
        if self._stuck is None:
            return None
        execution, report = self._stuck
        if execution.await_settled(0):
            self._stuck = None
            return None
        return busy_error(report.snippet_number, tuple(execution.top_frames(len(report.frames))) or report.frames)

    def submit(self, submit: Callable[[], Execution], limit: float, own: bool = False) -> Run:
        """Submits a snippet with ``submit`` (the host's call of :meth:`.bridge.EngineSession.submit`) under its time
        limit; the host asked :meth:`busy` first."""
        run = Run(submit(), limit, own)
        self.running = run
        return run

    def interrupt(self) -> Interrupt | None:
        """A user's interrupt: the running snippet's time limit no longer applies, and it is cancelled, or else the
        one that did not stop at an earlier interrupt is, again. None when there is none, or its interrupt is still
        being carried out."""
        if (run := self.running) is not None:
            run.lift_limit()
            return self._begin(run.execution)
        return self._begin(self._stuck[0] if self._stuck is not None else None)

    def check_time(self, run: Run) -> Interrupt | None:
        """The check :meth:`Run.until_check` asked for: the interrupt to carry out once ``run`` reached its limit
        (its outcome then says so); None while time is left (ask :meth:`Run.until_check` again) or none applies."""
        if run is not self.running or not run.reached_limit():
            return None
        self._log.warning("snippet%s.kts reached the time limit, interrupting it", run.snippet_number)
        return self._begin(run.execution)

    def _begin(self, execution: Execution | None) -> Interrupt | None:
        if execution is None or execution.snippet_number in self._interrupting:
            return None
        self._log.info("interrupting snippet%s.kts", execution.snippet_number)
        execution.cancel()  # at once: what listens to it ends within ms, before any escalation starts
        self._interrupting.add(execution.snippet_number)
        return Interrupt(execution, self._find_stopper, self._clock)

    def interrupted(self, interrupt: Interrupt, report: Unstoppable | None) -> SettledEvent | None:
        """What :meth:`Interrupt.carry_out` gave: None when the snippet settled (its own settled event ends its run),
        else the event that ends it now, while it runs on. One that could not be stopped makes the session busy until
        it settles; one still compiling does not (it will not run)."""
        self._interrupting.discard(interrupt.execution.snippet_number)
        if report is None:
            return None
        self._log.warning("snippet%s.kts still runs after its interrupt: %s", report.snippet_number, report)
        if not report.compiling:
            self._stuck = (interrupt.execution, report)
        error = interrupted_cell_error(report, interrupt.execution.not_run_evalue)
        return SettledEvent(report.snippet_number, error, cancelled=True)

    def interrupt_now(self, interrupt: Interrupt) -> SettledEvent | None:
        """Carries ``interrupt`` out on this thread and records it, as :meth:`interrupted` says."""
        try:
            report = interrupt.carry_out()
        except BaseException:
            self._interrupting.discard(interrupt.execution.snippet_number)  # a later interrupt may try again
            raise
        return self.interrupted(interrupt, report)

    def finish(self, run: Run, settled: SettledEvent) -> Ended:
        """The end of ``run`` as its host shows it: past its time limit, its error says the limit above the
        interrupt's report (a snippet that settled before its interrupt came ended on its own)."""
        self.forget(run)
        exceeded = run.timed_out and settled.cancelled
        if exceeded:
            settled = dataclasses.replace(
                settled, outcome=time_limit_outcome(settled.outcome, run.snippet_number, run.limit, run.own_limit)
            )
        return Ended(settled, exceeded)

    def forget(self, run: Run) -> None:
        """``run`` no longer runs for its host (it ended, or its host stopped waiting for it)."""
        if self.running is run:
            self.running = None
