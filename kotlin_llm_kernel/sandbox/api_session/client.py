"""The Python API's side of a sandboxed session: the session runs in a child process inside a sandbox
(:mod:`.child`), driven over its stdin and stdout; the API's calls become requests, what a snippet prints and
its reads of stdin come back as the request's events. The whole agent process need not be sandboxed: only the code
it sends runs inside."""

from __future__ import annotations

import dataclasses
import itertools
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from ...session.bridge import Completion
from ...session.results import Error, Value
from ..host import SandboxUnavailable
from ..layout import SandboxOptions
from ..sandbox import Sandbox
from .wire import line, read

#: The child's module, run inside.
MODULE = "kotlin_llm_kernel.sandbox.api_session.child"
#: Seconds the child may take to close its session before it is killed.
CLOSE_TIMEOUT = 60


class SandboxedSessionEnded(RuntimeError):
    """The sandboxed session's process ended (its last lines of stderr are in the message)."""


class SandboxedSession:
    """One session in a sandbox, called as :class:`.ScriptSession` is (it delegates here)."""

    def __init__(
        self,
        options: SandboxOptions,
        session: Mapping[str, Any],
        stdin: Callable[[str, bool], str | None] | None,
        echo: bool,
    ) -> None:
        repositories = tuple(session.get("repositories") or ())
        self._stdin, self._echo = stdin, echo
        merged = dataclasses.replace(options, repositories=(*options.repositories, *repositories))
        self._sandbox = Sandbox(merged)
        try:
            local = session.get("local_repository")
            workspace = self._sandbox.workspace
            if local and not (
                workspace == Path(os.path.abspath(local)) or workspace in Path(os.path.abspath(local)).parents
            ):
                raise SandboxUnavailable(
                    f"local_repository {local} is outside the workspace {workspace}, which is all a sandboxed session "
                    "can write: give one in the workspace, or none (the sandbox's home has its own)."
                )
            tmp = workspace / ".tmp"
            tmp.mkdir(exist_ok=True)
            if self._sandbox.user.drop:
                os.chown(tmp, self._sandbox.user.uid, self._sandbox.user.gid)
            command = self._sandbox.command(self._sandbox.python("-m", MODULE), env={"TMPDIR": str(tmp)})
            self._process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
            )
        except BaseException:
            self._sandbox.close()
            raise
        self._lock = threading.Lock()
        self._queues: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self.last_snippet_number = 0
        started: queue.Queue[dict[str, Any]] = queue.Queue()
        self._queues[0] = started
        self._reader = threading.Thread(target=self._read, name="sandboxed-session-reader", daemon=True)
        self._reader.start()
        first = dict(session) | {
            "stdin": stdin is not None,
            "repositories": [self._sandbox.url(r) for r in repositories],
        }
        self._write(first)
        self._wait(started)

    @property
    def workspace(self) -> str:
        return str(self._sandbox.workspace)

    def _write(self, message: dict[str, Any]) -> None:
        pipe: IO[str] | None = self._process.stdin
        assert pipe is not None
        with self._lock:
            try:
                pipe.write(line(message))
                pipe.flush()
            except (BrokenPipeError, ValueError):
                pass  # the reader says the process ended

    def _read(self) -> None:
        pipe = self._process.stdout
        assert pipe is not None
        for text in pipe:
            message = read(text)
            target = self._queues.get(message["id"])
            if target is not None:
                target.put(message)
        for target in list(self._queues.values()):
            target.put({"ended": True})

    def _wait(
        self, answers: queue.Queue[dict[str, Any]], on_event: Callable[[dict[str, Any]], None] | None = None
    ) -> Any:
        while True:
            message = answers.get()
            if message.get("ended"):
                raise SandboxedSessionEnded(
                    f"the sandboxed session's process ended (exit status {self._process.wait()}); see its stderr"
                )
            if "event" in message:
                if on_event is not None:
                    on_event(message)
                continue
            if "failed" in message:
                raise RuntimeError(f"the sandboxed session failed: {message['failed']}")
            self.last_snippet_number = message["last"] or self.last_snippet_number
            return message["result"]

    def _request(self, op: str, on_event: Callable[[dict[str, Any]], None] | None = None, **arguments: Any) -> Any:
        request = next(self._ids)
        answers: queue.Queue[dict[str, Any]] = queue.Queue()
        self._queues[request] = answers
        try:
            self._write({"id": request, "op": op, **arguments})
            return self._wait(answers, on_event)
        finally:
            self._queues.pop(request, None)

    def execute(self, code: str, time_limit: float | None, printed: Callable[[str, str], None] | None) -> Value | Error:
        def on_event(message: dict[str, Any]) -> None:
            if message["event"] == "printed":
                if printed is not None:
                    printed(message["stream"], message["text"])
                if self._echo:
                    target = sys.stderr if message["stream"] == "stderr" else sys.stdout
                    target.write(message["text"])
                    target.flush()
            elif message["event"] == "input":
                answer = self._stdin(message["prompt"], message["password"]) if self._stdin else None
                self._write({"id": message["id"], "op": "input", "line": answer})

        result = self._request("execute", on_event, code=code, time_limit=time_limit)
        assert isinstance(result, (Value, Error))
        return result

    def check(self, code: str) -> Value | Error:
        result = self._request("check", code=code)
        assert isinstance(result, (Value, Error))
        return result

    def complete(self, code: str, cursor: int) -> Completion:
        result = self._request("complete", code=code, cursor=cursor)
        assert isinstance(result, Completion)
        return result

    def inspect(self, code: str, cursor: int) -> str | None:
        result = self._request("inspect", code=code, cursor=cursor)
        assert result is None or isinstance(result, str)
        return result

    def interrupt(self) -> bool:
        return bool(self._request("interrupt"))

    def close(self) -> None:
        """Closes the session, ends the child and removes the sandbox."""
        try:
            closed: queue.Queue[dict[str, Any]] = queue.Queue()
            self._queues[-1] = closed
            self._write({"id": -1, "op": "close"})
            try:
                self._process.wait(timeout=CLOSE_TIMEOUT)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        finally:
            self._sandbox.close()
