"""The kernel's ``sys.stdout``/``sys.stderr``: ipykernel's streams, with a flush that costs nothing when idle; and
the wait that puts a cell's messages on iopub ahead of its execute reply.

ipykernel flushes both streams before every execute reply, each flush a round trip to its IOPub thread (about a
millisecond apiece on a busy machine). Kotlin output never passes through them (the engine's output goes out as
stream messages of its own); they carry only what reaches the process's file descriptors 1 and 2, such as JVM
warnings. So a flush with nothing written since the previous one returns at once; any write, including one from
the file-descriptor watcher, makes the next flush a full one.

Those flushes were also what made the IOPub thread send a cell's messages (its error, its value) before the reply
went out on shell; :func:`iopub_sent` is that one round trip, awaited without blocking the event loop. A frontend
may print what iopub holds once the reply came and no more (``jupyter console`` after an interrupt, whose idle
status it takes for the cell's), so a message sent after the reply would show after the next prompt.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ipykernel.iostream import OutStream as IpykernelOutStream

#: Only bounds the wait for an IOPub thread that no longer sends (the kernel shuts down).
IOPUB_SENT_SECONDS = 2.0


class OutStream(IpykernelOutStream):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._written_since_flush = True  # whatever the base class writes while starting up
        super().__init__(*args, **kwargs)

    def write(self, string: str) -> int | None:  # type: ignore[override]
        self._written_since_flush = True
        return super().write(string)

    def flush(self) -> None:
        if not self._written_since_flush:
            return
        self._written_since_flush = False  # before flushing: a write racing the flush makes the next one full
        super().flush()


async def iopub_sent(iopub_thread: Any, timeout: float = IOPUB_SENT_SECONDS) -> None:
    """Returns once ipykernel's IOPub thread has sent the messages queued before the call (or after ``timeout``)."""
    if iopub_thread is None:
        return
    loop = asyncio.get_running_loop()
    sent: asyncio.Future[None] = loop.create_future()

    def mark_sent() -> None:
        if not sent.done():
            sent.set_result(None)

    def on_iopub_thread() -> None:  # runs after the messages queued before it: the thread's queue is in order
        try:
            loop.call_soon_threadsafe(mark_sent)
        except RuntimeError:  # the loop is closed: the kernel is shutting down
            pass

    iopub_thread.schedule(on_iopub_thread)
    try:
        await asyncio.wait_for(sent, timeout)
    except asyncio.TimeoutError:
        pass
