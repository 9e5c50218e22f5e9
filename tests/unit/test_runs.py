"""The policy of running one snippet (kotlin_llm_kernel/session/policy/runs.py), driven as its hosts drive it, against a
double of the engine's Execution whose clocks the test moves: the escalation's (its waits advance it) and the run's
own."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from kotlin_llm_kernel.session.events import SettledEvent
from kotlin_llm_kernel.session.jvmti import StopUnavailable
from kotlin_llm_kernel.session.policy.interrupts import GIVE_UP_AFTER, STOP_AFTER, Unstoppable
from kotlin_llm_kernel.session.policy.runs import RECHECK_SECONDS, Ended, Interrupt, Runs
from kotlin_llm_kernel.session.results import Error, Value

#: Only catches a hang: the interrupt's thread ends as soon as the double settles.
HANG_GUARD = 30

STOPPER: Any = object()
#: What the double's engine says of a snippet cancelled while it compiled: the policy shows the engine's words.
NOT_RUN_EVALUE = "the double's words: cancelled while it compiled, it did not run"
FRAMES = ["java.io.FileInputStream.readBytes(Native Method)", "<snippet body>(snippet4.kts:3)"]
WAY_OUT = "interrupt again to retry, or restart the kernel to go on at once (the session's state is lost)"
HINT = (
    "hint: split the work into shorter cells, or raise the limit (setting cell_time_limit; KERNEL_CELL_TIME_LIMIT "
    "when a gateway starts the kernel)"
)


class Clock:
    """The escalation's clock: it moves only when the double waits."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeExecution:
    """A submitted snippet as the policy sees it: it settles at its cancellation, after some stops, or never (until
    the test ends it); while it compiles it cannot be stopped."""

    def __init__(
        self, clock: Clock, number: int = 4, settles_after_stops: int | None = 0, evaluating: bool = True
    ) -> None:
        self.clock = clock
        self.snippet_number = number
        self.evaluating = evaluating
        self.not_run_evalue = NOT_RUN_EVALUE
        self.run_seconds = 0.0
        self.settles_after_stops = settles_after_stops  # 0: at its cancellation; None: never
        self.cancels = 0
        self.stops: list[float] = []  # when each stop was sent, by the escalation's clock
        self.stop_error: StopUnavailable | None = None
        self.settled = False

    def cancel(self) -> None:
        self.cancels += 1
        if self.settles_after_stops == 0:
            self.settled = True

    def await_settled(self, timeout: float) -> bool:
        if not self.settled:
            self.clock.now += timeout
        return self.settled

    def stop(self, stopper: Any) -> bool:
        assert stopper is STOPPER
        if self.stop_error is not None:
            raise self.stop_error
        if not self.evaluating or self.settled:
            return False  # the engine never stops a compilation
        self.stops.append(self.clock.now)
        if self.settles_after_stops is not None and len(self.stops) >= self.settles_after_stops:
            self.settled = True
        return True

    def top_frames(self, limit: int) -> list[str]:
        return [] if self.settled else FRAMES[:limit]


@pytest.fixture
def clock() -> Clock:
    return Clock()


def runs_with(clock: Clock) -> Runs:
    return Runs(find_stopper=lambda: STOPPER, clock=clock)


def interrupted_event(number: int, evalue: str = "sleep interrupted") -> SettledEvent:
    """The engine's settled event of a snippet that its cancellation ended."""
    ename = "java.lang.InterruptedException"
    message = f"{ename}: {evalue}\n  at <snippet body>(snippet{number}.kts:2)"
    return SettledEvent(number, Error("EVALUATION", message, ename, evalue), cancelled=True)


def test_a_snippet_that_settles_at_its_cancellation_ends_with_its_own_outcome(clock: Clock) -> None:
    runs = runs_with(clock)
    execution = FakeExecution(clock)
    run = runs.submit(lambda: execution, 0)
    assert runs.running is run and run.until_check() is None, "no limit"
    interrupt = runs.interrupt()
    assert interrupt is not None and execution.cancels == 1, "cancelled at once, before the escalation"
    assert runs.interrupt() is None, "one escalation at a time"
    assert runs.interrupt_now(interrupt) is None
    assert (execution.stops, clock.now) == ([], 100.0), "nothing stopped, nothing waited for"
    own = interrupted_event(4)
    ended = runs.finish(run, own)
    assert (ended.settled, ended.time_limit_exceeded) == (own, False)
    assert runs.running is None and runs.busy() is None


def test_a_snippet_ignoring_its_cancellation_is_stopped_until_it_settles(clock: Clock) -> None:
    runs = runs_with(clock)
    execution = FakeExecution(clock, settles_after_stops=2)
    runs.submit(lambda: execution, 0)
    interrupt = runs.interrupt()
    assert interrupt is not None
    assert runs.interrupt_now(interrupt) is None
    assert execution.stops == [100.0 + STOP_AFTER, 100.0 + STOP_AFTER + 0.25], "after STOP_AFTER, then STOP_EVERY"
    assert runs.busy() is None


def test_a_snippet_that_never_stops_ends_its_cell_and_later_ones_are_busy_until_it_settles(clock: Clock) -> None:
    runs = runs_with(clock)
    execution = FakeExecution(clock, settles_after_stops=None)
    run = runs.submit(lambda: execution, 0)
    interrupt = runs.interrupt()
    assert interrupt is not None
    abandoned = runs.interrupt_now(interrupt)
    assert clock.now == pytest.approx(100.0 + GIVE_UP_AFTER), "given up after GIVE_UP_AFTER"
    assert execution.stops == [100.5, 100.75, 101.0, 101.25], "every STOP_EVERY from STOP_AFTER on"
    assert abandoned is not None and abandoned.cancelled
    error = abandoned.outcome
    assert isinstance(error, Error)
    assert error.ename == "SnippetNotStopped"
    assert error.evalue == "snippet4.kts did not stop when interrupted and runs on"
    assert error.traceback == [
        "SnippetNotStopped: snippet4.kts did not stop when interrupted and runs on",
        *(f"  at {frame}" for frame in FRAMES),
        f"Later cells fail until it ends: {WAY_OUT}.",
    ]
    assert runs.finish(run, abandoned).settled == abandoned

    busy = runs.busy()
    assert busy is not None
    assert (busy.ename, busy.evalue) == (
        "SessionBusy",
        "the session still runs snippet4.kts, which did not stop when interrupted",
    )
    assert busy.traceback[1:] == [*(f"  at {frame}" for frame in FRAMES), f"This cell did not run: {WAY_OUT}."]

    retry = runs.interrupt()
    assert retry is not None and retry.execution is execution, "an interrupt between cells tries it again"
    execution.settles_after_stops = len(execution.stops) + 1
    assert runs.interrupt_now(retry) is None
    assert runs.busy() is None, "free once it settled"


def test_the_time_limit_leaves_out_waits_for_input_and_its_error_says_the_limit(clock: Clock) -> None:
    runs = runs_with(clock)
    execution = FakeExecution(clock, number=6)
    run = runs.submit(lambda: execution, 5)
    assert run.until_check() == 5, "checked when the limit would be reached"
    execution.run_seconds = 3.0  # 5 s went by, 2 of them waiting for input: the engine's clock stood still
    assert runs.check_time(run) is None
    assert run.until_check() == 2
    execution.run_seconds = 4.9
    assert runs.check_time(run) is None
    assert run.until_check() == RECHECK_SECONDS, "not sooner than RECHECK_SECONDS"
    execution.run_seconds = 5.0
    interrupt = runs.check_time(run)
    assert interrupt is not None and execution.cancels == 1
    assert run.until_check() is None and runs.check_time(run) is None, "checked no more"
    assert runs.interrupt_now(interrupt) is None
    ended = runs.finish(run, interrupted_event(6))
    assert ended.time_limit_exceeded
    error = ended.settled.outcome
    assert isinstance(error, Error)
    assert error.ename == "TimeLimitExceeded"
    assert error.evalue == (
        "snippet6.kts ran longer than the time limit of 5 s (setting cell_time_limit) and was interrupted; the "
        "session keeps its state"
    )
    assert error.traceback == [
        f"TimeLimitExceeded: {error.evalue}",
        "java.lang.InterruptedException: sleep interrupted",
        "  at <snippet body>(snippet6.kts:2)",
        HINT,
    ]


def test_a_user_s_interrupt_lifts_the_limit(clock: Clock) -> None:
    runs = runs_with(clock)
    execution = FakeExecution(clock)
    run = runs.submit(lambda: execution, 5)
    interrupt = runs.interrupt()
    assert interrupt is not None and run.until_check() is None
    execution.run_seconds = 6.0
    assert runs.check_time(run) is None
    assert runs.interrupt_now(interrupt) is None
    own = interrupted_event(4)
    assert runs.finish(run, own) == Ended(own, time_limit_exceeded=False)


def test_a_snippet_that_settled_before_its_time_limit_interrupt_keeps_its_outcome(clock: Clock) -> None:
    runs = runs_with(clock)
    execution = FakeExecution(clock)
    run = runs.submit(lambda: execution, 1)
    execution.run_seconds = 1.0
    assert runs.check_time(run) is not None
    finished = SettledEvent(4, Value("caught", "caught"), cancelled=False)
    assert runs.finish(run, finished) == Ended(finished, time_limit_exceeded=False)


def test_a_cancellation_while_it_compiles_ends_the_cell_as_not_run_and_the_session_is_not_busy(clock: Clock) -> None:
    runs = runs_with(clock)
    execution = FakeExecution(clock, number=7, settles_after_stops=None, evaluating=False)
    run = runs.submit(lambda: execution, 2)
    execution.run_seconds = 2.0
    interrupt = runs.check_time(run)
    assert interrupt is not None
    abandoned = runs.interrupt_now(interrupt)
    assert execution.stops == [], "a compilation is never stopped"
    assert abandoned is not None
    error = abandoned.outcome
    assert isinstance(error, Error) and error.not_run
    assert (error.ename, error.evalue) == ("InterruptedException", NOT_RUN_EVALUE)
    assert error.traceback == [f"InterruptedException: {NOT_RUN_EVALUE}"]
    assert error.snippet_number == 7
    ended = runs.finish(run, abandoned)
    assert ended.time_limit_exceeded
    limited = ended.settled.outcome
    assert isinstance(limited, Error) and limited.not_run
    assert limited.evalue == (
        "snippet7.kts ran longer than the time limit of 2 s (setting cell_time_limit) while it compiled and was "
        "cancelled: it did not run; the session keeps its state"
    )
    assert runs.busy() is None, "it will not run: later snippets wait behind its compilation"


def test_a_thread_that_cannot_be_stopped_is_reported_where_it_runs(clock: Clock) -> None:
    runs = runs_with(clock)
    execution = FakeExecution(clock, settles_after_stops=None)
    execution.stop_error = StopUnavailable("no JVM TI")
    runs.submit(lambda: execution, 0)
    interrupt = runs.interrupt()
    assert interrupt is not None
    report = interrupt.carry_out()
    assert report == Unstoppable(4, tuple(FRAMES), compiling=False)


def test_an_interrupt_is_carried_out_on_its_own_thread_and_reported_back(clock: Clock) -> None:
    runs = runs_with(clock)
    execution = FakeExecution(clock, settles_after_stops=1)
    runs.submit(lambda: execution, 0)
    interrupt = runs.interrupt()
    assert isinstance(interrupt, Interrupt)
    reported = threading.Event()
    seen: list[tuple[str, Unstoppable | None]] = []

    def done(report: Unstoppable | None) -> None:
        seen.append((threading.current_thread().name, report))
        reported.set()

    interrupt.start(done)
    assert reported.wait(HANG_GUARD)
    assert seen == [("kotlin-llm-interrupt", None)]
    assert runs.interrupted(interrupt, None) is None
    assert runs.interrupt() is not None, "its escalation is over: a new interrupt begins one"
