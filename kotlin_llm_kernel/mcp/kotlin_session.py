"""The server's one Kotlin session: started on the first call that needs it, and replaced by ``restart``."""

from __future__ import annotations

import threading

from ..api import Completion, ScriptSession, SessionOptions
from ..session.results import Error, Value


class KotlinSession:
    """One :class:`.ScriptSession` at a time. The SDK runs each tool call on a worker thread and may run two at once,
    while a session runs one snippet at a time in order: a lock makes the calls take turns."""

    def __init__(self, options: SessionOptions | None = None) -> None:
        # No echo by default: the process's stdout is the MCP channel; what a snippet prints is in its result.
        self._options = options or SessionOptions(echo=False)
        self._lock = threading.Lock()
        self._session: ScriptSession | None = None

    def _started(self) -> ScriptSession:
        if self._session is None:
            self._session = ScriptSession(options=self._options)
        return self._session

    def execute(self, code: str) -> tuple[Value | Error, int]:
        """Runs ``code`` as the next snippet: its outcome and its snippet number."""
        with self._lock:
            session = self._started()
            number = session.last_snippet_number + 1  # the number the engine gives the next snippet
            return session.execute(code), number

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
