"""A session prepared on a thread of its own, ahead of the call that needs it: the JVM (once per process), the
session with its compiler, and an unnumbered warm-up, so that the first run is ``snippet1.kts`` and finds the
compiler warm.

The warm-up is a :meth:`.ScriptSession.check`: a compilation that declares nothing, runs nothing and leaves the next
snippet its number. It exercises what a first cell usually needs (lambdas, collections), which the session's own
start (its unnumbered prelude) does not. Then a completion, which changes nothing either: without it, the engine's
own completion warm-up, which starts once the session idles, would still be under way when a call comes right after
the session is ready, and that call would wait for it (measured: 0.67 s instead of 0.08 s for a first run). A call
already waiting for the session goes first: the completion is then left out.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from ..api import ScriptSession, SessionOptions, start_jvm


@dataclass(frozen=True)
class JvmSettings:
    """How the server's JVM starts (once per process, with its first session), named as the kernel's settings."""

    max_heap: str = ""
    jvm_options: tuple[str, ...] = ()


#: Compiled (never run) once a session has started: a declaration-free expression with lambdas and collections.
WARM_UP = "listOf(3, 1, 2).map { it * 2 }.filter { it > 1 }.sorted().sum()"
#: Completed at its end once :data:`WARM_UP` compiled.
COMPLETION_WARM_UP = '"abc".'


def warmed(options: SessionOptions, jvm: JvmSettings, wanted: threading.Event) -> ScriptSession:
    """A started session whose compiler has compiled :data:`WARM_UP` and completed :data:`COMPLETION_WARM_UP` (a
    failed start shows on the first call); without the completion once ``wanted`` is set (a call waits)."""
    start_jvm(jvm_options=jvm.jvm_options, max_heap=jvm.max_heap)
    session = ScriptSession(options=options)
    if session.check(WARM_UP).ok and not wanted.is_set():  # not ok: the compiler did not start (the call says so)
        session.complete(COMPLETION_WARM_UP, len(COMPLETION_WARM_UP))
    return session


class Preparation:
    """A session being made by ``make`` on a daemon thread; ``ready`` is called with the seconds it took once it is
    ready (not on a failure, which :meth:`session` raises)."""

    def __init__(
        self, make: Callable[[threading.Event], ScriptSession], name: str, ready: Callable[[float], None]
    ) -> None:
        self._future: Future[ScriptSession] = Future()
        #: Set when a call waits for the session (``make`` may then cut its warm-up short).
        self.wanted = threading.Event()
        #: Set when a call that used the session ended.
        self.used = threading.Event()
        self._discarded = False
        self._lock = threading.Lock()
        started = time.monotonic()

        def prepare() -> None:
            try:
                session = make(self.wanted)
            except BaseException as error:  # noqa: BLE001 - the call that waits for the session raises it
                self._future.set_exception(error)
                return
            with self._lock:
                discarded = self._discarded
                if not discarded:
                    self._future.set_result(session)
            if discarded:
                session.close()
                self._future.set_exception(RuntimeError("the session was discarded"))
            else:
                ready(time.monotonic() - started)

        threading.Thread(target=prepare, name=name, daemon=True).start()

    def ready(self) -> bool:
        """Whether the session is there (a call needs not wait for it)."""
        return self._future.done() and self._future.exception() is None

    def starting(self) -> bool:
        """Whether the session is still being made."""
        return not self._future.done()

    def session(self) -> ScriptSession:
        """The session, waiting until it is ready; raises what its start raised."""
        self.wanted.set()
        return self._future.result()

    def wait(self) -> bool:
        """Waits until the preparation ended: whether it gave a session."""
        try:
            self._future.result()
        except BaseException:  # noqa: BLE001 - a failure means no session
            return False
        return True

    def session_if_ready(self) -> ScriptSession | None:
        return self._future.result() if self.ready() else None

    def discard(self) -> None:
        """Closes the session now, or as soon as it is ready."""
        with self._lock:
            self._discarded = True
            session = self.session_if_ready()
        if session is not None:
            session.close()
