"""A sandboxed Python API session's child (``python -m kotlin_llm_kernel.sandbox.api_session.child``), run inside the
sandbox: one :class:`.ScriptSession`, driven by JSON lines on stdin (``execute``, ``check``, ``complete``,
``inspect``, ``interrupt``, ``input``, ``close``), answering on stdout with each request's events (``printed``,
``input``) and its ``result``. The first line is the session's options. Anything else the process prints goes to
stderr, so that stdout carries only the protocol."""

from __future__ import annotations

import os
import queue
import sys
import threading
from typing import Any, TextIO

from ...api import ScriptSession, SessionOptions
from .wire import line, read


class Child:
    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._lock = threading.Lock()
        self._answers: dict[int, queue.Queue[str | None]] = {}
        self.session: ScriptSession | None = None

    def send(self, message: dict[str, Any]) -> None:
        with self._lock:
            self._out.write(line(message))
            self._out.flush()

    def start(self, options: dict[str, Any]) -> None:
        stdin = self._stdin if options.pop("stdin") else None
        properties = options.pop("properties")
        self.session = ScriptSession(properties, options=SessionOptions(echo=False, stdin=stdin, **options))

    def _stdin(self, prompt: str, password: bool) -> str | None:
        request = self._current
        answers: queue.Queue[str | None] = queue.Queue()
        self._answers[request] = answers
        self.send({"id": request, "event": "input", "prompt": prompt, "password": password})
        try:
            return answers.get()
        finally:
            self._answers.pop(request, None)

    _current = 0

    def handle(self, message: dict[str, Any]) -> None:
        session = self.session
        assert session is not None
        request, op = message["id"], message["op"]
        try:
            if op == "execute":
                self._current = request

                def printed(stream: str, text: str) -> None:
                    self.send({"id": request, "event": "printed", "stream": stream, "text": text})

                result: Any = session.execute(message["code"], time_limit=message["time_limit"], printed=printed)
            elif op == "check":
                result = session.check(message["code"])
            elif op == "complete":
                result = session.complete(message["code"], message["cursor"])
            elif op == "inspect":
                result = session.inspect(message["code"], message["cursor"])
            elif op == "interrupt":
                result = session.interrupt()
            else:
                raise ValueError(f"unknown request {op!r}")
        except Exception as error:  # noqa: BLE001 - said to the caller, which raises it
            self.send({"id": request, "failed": f"{type(error).__name__}: {error}"})
            return
        self.send({"id": request, "result": result, "last": session.last_snippet_number})

    def answer(self, message: dict[str, Any]) -> None:
        answers = self._answers.get(message["id"])
        if answers is not None:
            answers.put(message["line"])


def main() -> None:
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what the JVM or a library prints to stdout stays off the protocol
    sys.stdout = sys.stderr
    child = Child(out)
    child.start(read(sys.stdin.readline()))
    child.send({"id": 0, "result": "started", "last": 0})
    for text in sys.stdin:
        message = read(text)
        if message["op"] == "close":
            break
        if message["op"] == "input":
            child.answer(message)
            continue
        threading.Thread(target=child.handle, args=(message,), daemon=True).start()
    if child.session is not None:
        child.session.close()
    child.send({"id": -1, "result": "closed", "last": 0})
    out.close()
    os._exit(0)  # the JVM is gone: nothing may call into it during Python's finalization


if __name__ == "__main__":
    main()
