"""A single daemon thread running blocking JPype calls one after another, so the event loop never blocks on Java.

Unlike ``concurrent.futures.ThreadPoolExecutor`` (whose threads are joined at exit), a stuck Java call here can
never keep the process from exiting.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class DaemonWorker:
    def __init__(self, name: str) -> None:
        self._tasks: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while (task := self._tasks.get()) is not None:
            function, future = task
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(function())
            except BaseException as error:  # noqa: BLE001 - handed to the waiting caller
                future.set_exception(error)

    def submit(self, function: Callable[..., T], *args: Any) -> Future[T]:
        future: Future[T] = Future()
        self._tasks.put((lambda: function(*args), future))
        return future

    def stop(self) -> None:
        self._tasks.put(None)
