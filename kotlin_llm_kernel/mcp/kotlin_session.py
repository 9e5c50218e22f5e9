"""The server's one Kotlin session, and the next one prepared ahead.

With ``ahead`` (the server's default; ``--no-spare`` turns it off) the session starts preparing when the server
starts (:meth:`KotlinSession.start`), in the background, and a call that comes before it is ready waits for it; once
it is ready and its first call ended (or it idled :data:`REFILL_IDLE` seconds), a spare is prepared beside it, which
``restart`` hands out at once. At most one spare exists. Without ``ahead``, the session starts on the first call that
needs it, and ``restart`` leaves the next one to the next call.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..api import Completion, ScriptSession, SessionOptions
from ..session.results import Error, Value
from .prepared import JvmSettings, Preparation, warmed

__all__ = ["REFILL_IDLE", "JvmSettings", "KotlinSession"]

#: Seconds a ready session idles without a call before its spare is prepared anyway (else: after its first call, so
#: that the spare's compiler does not slow that call down).
REFILL_IDLE = 5.0
#: What the server's log lines begin with (its stderr: stdout may be the MCP channel).
LOG_PREFIX = "kotlin-llm-mcp: "


def log_to_stderr(line: str) -> None:
    print(LOG_PREFIX + line, file=sys.stderr, flush=True)


def _number(outcome: Value | Error, session: ScriptSession) -> int:
    """The snippet number an outcome carries; for a snippet that was not submitted (``SessionBusy``) and has none, the
    one it would have had, the next snippet's."""
    return outcome.snippet_number or session.last_snippet_number + 1


class KotlinSession:
    """One :class:`.ScriptSession` at a time. The SDK runs each tool call on a worker thread and may run two at once,
    while a session runs one snippet at a time in order: a lock makes the calls take turns, except :meth:`interrupt`,
    which acts on the call holding it."""

    def __init__(
        self,
        options: SessionOptions | None = None,
        jvm: JvmSettings | None = None,
        *,
        ahead: bool = False,
        log: Callable[[str], None] = log_to_stderr,
    ) -> None:
        # No echo by default: the process's stdout is the MCP channel; what a snippet prints is in its result.
        self._options = options or SessionOptions(echo=False)
        self._jvm = jvm or JvmSettings()
        self._ahead = ahead
        self._log = log
        self._lock = threading.Lock()  # the calls' turns
        self._state = threading.Lock()  # the fields below
        self._current: Preparation | None = None
        self._spare: Preparation | None = None
        self._closed = False

    def _prepare(self, what: str) -> Preparation:
        def ready(seconds: float) -> None:
            self._log(f"{what} is ready ({seconds:.1f} s)")

        return Preparation(
            lambda wanted: warmed(self._options, self._jvm, wanted), f"kotlin-llm-mcp-{what.split()[-1]}", ready
        )

    def start(self) -> None:
        """Starts preparing the session in the background, when sessions are prepared ahead (else: nothing)."""
        if not self._ahead:
            return
        with self._state:
            if self._current is None and not self._closed:
                self._log("starting the Kotlin session before the first call")
                self._current = self._hand_out(self._prepare("the session"))

    def _hand_out(self, preparation: Preparation) -> Preparation:
        """``preparation`` as the current session; its spare is prepared once it is ready and used or idle."""
        if self._ahead:
            threading.Thread(
                target=self._refill, args=(preparation,), name="kotlin-llm-mcp-refill", daemon=True
            ).start()
        return preparation

    def _refill(self, current: Preparation) -> None:
        if not current.wait():
            return
        current.used.wait(REFILL_IDLE)
        with self._state:
            if self._closed or self._current is not current or self._spare is not None:
                return
            self._spare = self._prepare("a spare session for restart()")

    @contextmanager
    def _turn(self) -> Iterator[ScriptSession]:
        """The session, for a call holding the lock (started now when none is)."""
        with self._state:
            if self._current is None:
                if not self._ahead:
                    self._log("starting the Kotlin session for the first call")
                self._current = self._hand_out(self._prepare("the session"))
            current = self._current
        try:
            session = current.session()
        except BaseException:
            with self._state:  # the next call starts another
                if self._current is current:
                    self._current = None
            raise
        try:
            yield session
        finally:
            current.used.set()

    def execute(self, code: str, time_limit: float | None = None) -> tuple[Value | Error, int]:
        """Runs ``code`` as the next snippet (under ``time_limit`` seconds instead of the session's, when given): its
        outcome and its snippet number."""
        with self._lock:
            return self._execute(code, time_limit)

    def execute_unless(
        self,
        withdrawn: threading.Event,
        code: str,
        time_limit: float | None = None,
        printed: Callable[[str, str], None] | None = None,
    ) -> tuple[Value | Error, int] | None:
        """:meth:`execute`, or None when ``withdrawn`` was set before its turn came (then nothing ran); ``printed``
        follows what it prints (:meth:`.ScriptSession.execute`)."""
        with self._lock:
            return None if withdrawn.is_set() else self._execute(code, time_limit, printed)

    def _execute(
        self, code: str, time_limit: float | None, printed: Callable[[str, str], None] | None = None
    ) -> tuple[Value | Error, int]:
        with self._turn() as session:
            outcome = session.execute(code, time_limit=time_limit, printed=printed)
            return outcome, _number(outcome, session)

    def check(self, code: str) -> tuple[Value | Error, int]:
        """Compiles ``code`` as the next snippet would be, without running it: the outcome of its compilation and
        the number it was checked as (the next snippet's, which it keeps)."""
        with self._lock, self._turn() as session:
            outcome = session.check(code)
            return outcome, _number(outcome, session)

    def interrupt(self) -> bool:
        """Interrupts the running snippet, if any (not waiting for the lock, which its call holds); whether one ran."""
        current = self._current
        session = None if current is None else current.session_if_ready()
        return session is not None and session.interrupt()

    def complete(self, code: str, cursor: int) -> Completion:
        with self._lock, self._turn() as session:
            return session.complete(code, cursor)

    def inspect(self, code: str, cursor: int) -> str | None:
        with self._lock, self._turn() as session:
            return session.inspect(code, cursor)

    def restart(self) -> int:
        """Closes the session and hands out a fresh one: the spare (ready or still starting: the next call waits for
        it), else one that starts now (ahead) or on the next call; the number of snippets the old one had run. A
        session still starting, or that ran no snippet, is fresh already: it stays (ahead)."""
        with self._lock:
            with self._state:
                old = self._current
                session = None if old is None else old.session_if_ready()
                if (
                    self._ahead
                    and old is not None
                    and (old.starting() or (session is not None and session.last_snippet_number == 0))
                ):
                    self._log("restart: the session ran no snippet yet, so it stays")
                    return 0
                self._current = None
                if self._ahead and not self._closed:
                    spare, self._spare = self._spare, None
                    if spare is None:
                        self._log("restart: no spare session yet: starting one")
                        spare = self._prepare("the session")
                    elif spare.ready():
                        self._log("restart: took the spare session (ready)")
                    else:
                        self._log("restart: took the spare session (still starting: the next call waits for it)")
                    self._current = self._hand_out(spare)
            if old is None:
                return 0
            ran = 0 if session is None else session.last_snippet_number
            old.discard()
            return ran

    def close(self) -> None:
        """Closes the session and the spare (each as soon as it is ready, when it is still starting); a call going
        on is not waited for."""
        with self._state:
            self._closed = True
            preparations = [p for p in (self._current, self._spare) if p is not None]
            self._current = self._spare = None
        for preparation in preparations:
            preparation.discard()
