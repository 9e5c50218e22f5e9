"""The server's one Kotlin session: started on the first call that needs it, and replaced by ``restart``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..api import Completion, ScriptSession, SessionOptions, start_jvm
from ..session.results import Error, Value


@dataclass(frozen=True)
class JvmSettings:
    """How the server's JVM starts (once per process, with its first session), named as the kernel's settings."""

    max_heap: str = ""
    jvm_options: tuple[str, ...] = ()


def _number(outcome: Value | Error, session: ScriptSession) -> int:
    """The snippet number an outcome carries; for a snippet that was not submitted (``SessionBusy``) and has none, the
    one it would have had, the next snippet's."""
    return outcome.snippet_number or session.last_snippet_number + 1


class KotlinSession:
    """One :class:`.ScriptSession` at a time. The SDK runs each tool call on a worker thread and may run two at once,
    while a session runs one snippet at a time in order: a lock makes the calls take turns, except :meth:`interrupt`,
    which acts on the call holding it."""

    def __init__(self, options: SessionOptions | None = None, jvm: JvmSettings | None = None) -> None:
        # No echo by default: the process's stdout is the MCP channel; what a snippet prints is in its result.
        self._options = options or SessionOptions(echo=False)
        self._jvm = jvm or JvmSettings()
        self._lock = threading.Lock()
        self._session: ScriptSession | None = None

    def _started(self) -> ScriptSession:
        if self._session is None:
            start_jvm(jvm_options=self._jvm.jvm_options, max_heap=self._jvm.max_heap)
            self._session = ScriptSession(options=self._options)
        return self._session

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
        session = self._started()
        outcome = session.execute(code, time_limit=time_limit, printed=printed)
        return outcome, _number(outcome, session)

    def check(self, code: str) -> tuple[Value | Error, int]:
        """Compiles ``code`` as the next snippet would be, without running it: the outcome of its compilation and
        the number it was checked as (the next snippet's, which it keeps)."""
        with self._lock:
            session = self._started()
            outcome = session.check(code)
            return outcome, _number(outcome, session)

    def interrupt(self) -> bool:
        """Interrupts the running snippet, if any (not waiting for the lock, which its call holds); whether one ran."""
        session = self._session
        return session is not None and session.interrupt()

    def complete(self, code: str, cursor: int) -> Completion:
        with self._lock:
            return self._started().complete(code, cursor)

    def inspect(self, code: str, cursor: int) -> str | None:
        with self._lock:
            return self._started().inspect(code, cursor)

    def restart(self) -> int:
        """Closes the session (a fresh one starts on the next call); the number of snippets it had run."""
        with self._lock:
            session, self._session = self._session, None
            if session is None:
                return 0
            ran = session.last_snippet_number
            session.close()
            return ran

    def close(self) -> None:
        self.restart()
