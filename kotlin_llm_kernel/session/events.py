"""What a session reports, as plain Python objects, and the one thread per session that reads it.

The engine queues its events (output, each snippet settling); :class:`EventReader` blocks on that queue and hands
each batch to its consumer: the kernel's event loop, or a :class:`SnippetWaiter` for callers that run one
snippet at a time (the Python API, the class-data sharing helper).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .results import Outcome

#: How long one wait for events lasts: the reader returns at once when events come; this only bounds how long it
#: takes to notice a session closed while it waited.
WAIT_MILLIS = 60_000

#: The longest a caller's wait blocks at a time. A SIGINT (Ctrl-C) may be taken by any thread of the process, a JVM
#: thread included; Python then raises KeyboardInterrupt in the main thread only once its wait returns.
SIGNAL_CHECK_SECONDS = 0.25


@dataclass(frozen=True)
class OutputEvent:
    """Text printed by the session's code; ``snippet_number`` is the snippet running when it was printed, or the
    last one that ran when none was (0 before the first)."""

    snippet_number: int
    stream: str  # "stdout" | "stderr"
    text: str


@dataclass(frozen=True)
class SettledEvent:
    """A snippet finished (completed, failed or cancelled); after all the output its own thread printed."""

    snippet_number: int
    outcome: Outcome
    cancelled: bool


# --- rich output: displays and clearing ---


@dataclass(frozen=True)
class DisplayEvent:
    """A rich output (``display_data``, or ``update_display_data`` when ``update``), in order with the output and
    tagged with a snippet as it is; JSON MIME types are parsed (dict or list), images are base64 text."""

    snippet_number: int
    data: dict[str, Any]
    metadata: dict[str, Any]
    display_id: str | None
    update: bool


@dataclass(frozen=True)
class ClearOutputEvent:
    """The snippet cleared its cell's output; with ``wait``, once new output arrives."""

    snippet_number: int
    wait: bool


@dataclass(frozen=True)
class InputRequestEvent:
    """The code of snippet ``snippet_number`` reads its input (the host allowed it) and waits until
    ``EngineSession.answer_input(request_id, …)``; after the output printed before the read."""

    snippet_number: int
    request_id: int
    prompt: str  # "" for a plain read of System.in: its own prompt was printed before
    password: bool


@dataclass(frozen=True)
class ProcessExitEvent:
    """Code the engine does not rewrite (a library, the JDK) called ``System.exit`` or ``Runtime.exit``: the process
    is ending, and waits for ``EngineSession.exit_reported()`` (a time at most) so that the client can be told.

    ``snippet_number`` is the snippet running (``running``; else 0); ``status`` is None when the JDK does not tell it
    (before JDK 21); ``library_frames`` are the caller's frames up to the first of a snippet, innermost first;
    ``snippet_frames`` the snippets' frames below, as an error's report shows them ('' when none).
    """

    snippet_number: int
    running: bool
    call: str  # "System.exit" | "Runtime.exit"
    status: int | None
    library_frames: tuple[str, ...]
    snippet_frames: str


Event = OutputEvent | SettledEvent | DisplayEvent | ClearOutputEvent | InputRequestEvent | ProcessExitEvent


class EventSource(Protocol):
    @property
    def closed(self) -> bool: ...

    def next_events(self, timeout_millis: int) -> list[Event]: ...


class EventReader:
    """A daemon thread blocking on ``source.next_events`` and handing every batch to ``deliver``, until closed."""

    def __init__(self, source: EventSource, deliver: Callable[[list[Event]], None], name: str) -> None:
        self._source = source
        self._deliver = deliver
        self._thread = threading.Thread(target=self._read, name=name, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._source.closed:
            try:
                events = self._source.next_events(WAIT_MILLIS)
            except Exception:  # noqa: BLE001 - the session was closed under the call
                return
            if events:
                self._deliver(events)

    def join(self, timeout: float) -> None:
        """Waits for the thread to end (it does once the session is closed)."""
        self._thread.join(timeout)


class SnippetWaiter:
    """Events of one session for a caller that waits for one snippet at a time."""

    def __init__(self, source: EventSource) -> None:
        self._changed = threading.Condition()
        self._events: deque[Event] = deque()
        #: Every settled event, also kept apart: a Ctrl-C between taking one from the queue and returning it
        #: must not lose it (the caller then cancels and waits again).
        self._settled: dict[int, SettledEvent] = {}
        self._reader = EventReader(source, self._add, "kotlin-llm-events")

    def _add(self, events: list[Event]) -> None:
        with self._changed:
            self._events.extend(events)
            self._settled.update((e.snippet_number, e) for e in events if isinstance(e, SettledEvent))
            self._changed.notify_all()

    def end(self, event: SettledEvent) -> None:
        """Ends the wait for ``event``'s snippet with it: the host's policy ended the snippet's run while it runs on
        (an interrupt that could not stop it); its own settled event, when it comes, is dropped by later waits."""
        self._add([event])

    def join(self, timeout: float) -> None:
        """Waits for the reader to end, after the session was closed."""
        self._reader.join(timeout)

    def wait(
        self,
        snippet_number: int,
        on_output: Callable[[OutputEvent], None] | None = None,
        timeout: float | None = None,
        on_display: Callable[[DisplayEvent | ClearOutputEvent], None] | None = None,
        on_input: Callable[[InputRequestEvent], None] | None = None,
    ) -> SettledEvent:
        """Hands the output read meanwhile to ``on_output`` (and displays to ``on_display``), in order, until
        ``snippet_number`` settles, and the input requests to ``on_input`` (ignored without it: the engine
        withdraws them when their snippet ends).

        ``timeout`` (seconds) bounds the wait (:class:`TimeoutError`), also while output keeps coming; what was not
        handed over yet stays for the next wait.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._changed:
                if deadline is not None and time.monotonic() >= deadline:
                    raise TimeoutError(f"snippet{snippet_number}.kts did not settle in {timeout} s")
                while not self._events and snippet_number not in self._settled:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        raise TimeoutError(f"snippet{snippet_number}.kts did not settle in {timeout} s")
                    self._changed.wait(SIGNAL_CHECK_SECONDS if left is None else min(left, SIGNAL_CHECK_SECONDS))
                if not self._events:
                    return self._settled.pop(snippet_number)
                event = self._events.popleft()
            if isinstance(event, OutputEvent):
                if on_output is not None:
                    on_output(event)
            elif isinstance(event, DisplayEvent | ClearOutputEvent):
                if on_display is not None:
                    on_display(event)
            elif isinstance(event, InputRequestEvent):
                if on_input is not None:
                    on_input(event)
            elif isinstance(event, ProcessExitEvent):
                pass  # never queued: only a host that asks (the kernel) is told
            elif event.snippet_number == snippet_number:
                with self._changed:
                    self._settled.pop(snippet_number, None)
                return event
            else:
                with self._changed:
                    self._settled.pop(event.snippet_number, None)
