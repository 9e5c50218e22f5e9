"""The kernel's ``sys.stdout``/``sys.stderr``: ipykernel's streams, with a flush that costs nothing when idle.

ipykernel flushes both streams before every execute reply, each flush a round trip to its IOPub thread (about a
millisecond apiece on a busy machine). Kotlin output never passes through them (the engine's output goes out as
stream messages of its own); they carry only what reaches the process's file descriptors 1 and 2, such as JVM
warnings. So a flush with nothing written since the previous one returns at once; any write, including one from
the file-descriptor watcher, makes the next flush a full one.
"""

from __future__ import annotations

from typing import Any

from ipykernel.iostream import OutStream as IpykernelOutStream


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
