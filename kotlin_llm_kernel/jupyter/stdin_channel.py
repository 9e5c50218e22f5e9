"""The input requests of running cells, asked on the stdin channel from a thread of their own.

ipykernel's ``raw_input`` would wait on the event loop's thread, stopping all output meanwhile, and only a
KeyboardInterrupt ends its wait. Here one daemon thread sends each ``input_request`` in turn, polls the stdin socket
for its ``input_reply`` and gives up as soon as the request's stop event is set (an interrupt, or its cell ended).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import zmq

#: How often a wait for a reply looks at its stop event: an interrupt is noticed within this time.
POLL_SECONDS = 0.05
#: ipykernel's convention for the end of input typed by the user (Ctrl-D).
EOF = "\x04"
#: Only bounds how long the output printed before a read may take to leave the kernel ahead of the request.
OUTPUT_FLUSH_SECONDS = 2.0

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class InputRequest:
    """One read of a cell: asked under ``parent`` (its execute_request) to ``ident`` (its frontend), answered
    through ``answer(line | None)`` unless ``stop`` is set first."""

    prompt: str
    password: bool
    parent: dict[str, Any]
    ident: Any
    stop: threading.Event
    answer: Callable[[str | None], None]


class StdinChannel:
    """The kernel's only user of its stdin socket (a zmq socket belongs to one thread)."""

    def __init__(self, session: Any, socket: zmq.Socket[Any], flush_output: Callable[[], None]) -> None:
        self._session = session
        self._socket = socket
        self._flush_output = flush_output
        self._requests: queue.SimpleQueue[InputRequest] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="kotlin-llm-stdin", daemon=True)
        self._thread.start()

    def ask(self, request: InputRequest) -> None:
        """Queues ``request``; it is asked after those before it, and dropped if stopped by then."""
        self._requests.put(request)

    def _serve(self) -> None:
        while True:
            request = self._requests.get()
            if request.stop.is_set():
                continue
            try:
                reply = self._ask(request)
            except Exception:  # a broken request must not end the thread; its cell's stop ends the read
                log.exception("an input request failed")
                continue
            if reply is not None:
                request.answer(None if reply == EOF else reply)

    def _ask(self, request: InputRequest) -> str | None:
        """The reply's value, or None when the request was stopped first."""
        self._flush_output()
        self._drain()
        sent = self._session.send(
            self._socket,
            "input_request",
            {"prompt": request.prompt, "password": request.password},
            parent=request.parent,
            ident=request.ident,
        )
        sent_id = sent["header"]["msg_id"] if sent else None
        while not request.stop.is_set():
            readable, _, failed = zmq.select([self._socket], [], [self._socket], POLL_SECONDS)
            if not (readable or failed):
                continue
            try:
                _, reply = self._session.recv(self._socket)
            except Exception:  # a malformed message is skipped, as ipykernel does
                log.warning("an invalid message on the stdin channel", exc_info=True)
                continue
            if reply is None:
                continue
            if sent_id is not None and reply.get("parent_header", {}).get("msg_id") not in (None, sent_id):
                continue  # a late reply to a request that was stopped
            value = reply.get("content", {}).get("value", "")
            return value if isinstance(value, str) else str(value)
        return None

    def _drain(self) -> None:
        """Drops replies to earlier requests (ones stopped before their reply came)."""
        while True:
            try:
                self._socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return


def iopub_flusher(iopub_thread: Any) -> Callable[[], None]:
    """A function that waits until ipykernel's IOPub thread has sent what was queued before the call."""

    def flush() -> None:
        if iopub_thread is None:
            return
        done = threading.Event()
        iopub_thread.schedule(done.set)
        done.wait(OUTPUT_FLUSH_SECONDS)

    return flush
