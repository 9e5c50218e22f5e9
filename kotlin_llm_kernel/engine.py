"""A thin Python face of the JVM engine's ``org.kotlinllm.script.ScriptSession`` (its Java-friendly surface).

The JVM must be running (:func:`kotlin_llm_kernel.jvm.start_jvm`) before anything here is used. Snippets run on
the engine's own session thread; nothing here runs Kotlin on the calling thread, so callers stay interruptible.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import jpype

from .convert import java_str, properties_to_java, to_python
from .results import Error, Outcome, Value

PACKAGE = "org.kotlinllm.script"

OutputSink = Callable[[str, str], None]


@dataclass(frozen=True)
class SessionSettings:
    """The engine's ``SessionConfiguration``: None keeps the engine's default."""

    local_repository: str | None = None
    repositories: tuple[str, ...] = ()
    resolution_timeout: float | None = None  # seconds
    capture_output: bool = True


@dataclass(frozen=True)
class Completion:
    matches: list[str]
    start: int
    end: int


def _configuration(settings: SessionSettings) -> Any:
    config_class = jpype.JClass(f"{PACKAGE}.SessionConfiguration")
    path = jpype.JClass("java.nio.file.Path")
    local = path.of(settings.local_repository, jpype.JArray(jpype.JString)(0)) if settings.local_repository else None
    repositories = jpype.JClass("java.util.ArrayList")()
    for url in settings.repositories:
        repositories.add(jpype.JString(url))
    timeout_ms = round(settings.resolution_timeout * 1000) if settings.resolution_timeout is not None else -1
    return config_class.forHost(local, repositories, timeout_ms, settings.capture_output)


def to_outcome(result: Any) -> Outcome:
    """The Python form of a ``ScriptResult``."""
    value_class = jpype.JClass(f"{PACKAGE}.ScriptResult$Value")
    if isinstance(result, value_class):
        raw = result.getValue()
        unit = raw is not None and str(raw.getClass().getName()) == "kotlin.Unit"
        return Value(
            value=None if unit else to_python(raw),
            text=java_str(raw),
            is_unit=unit,
            warnings=tuple(str(w) for w in result.getWarnings()),
            resolved_versions={str(k): str(v) for k, v in result.getResolvedVersions().items()},
        )
    return Error(phase=str(result.getPhase().name()), message=str(result.getMessage()))  # type: ignore[arg-type]


def _internal_failure(error: BaseException) -> Error:
    cause = error
    if isinstance(error, jpype.JException) and error.getCause() is not None:
        cause = error.getCause()
    headline = java_str(cause) if isinstance(cause, jpype.JObject) else f"{type(cause).__name__}: {cause}"
    return Error(
        phase="EVALUATION",
        message=f"{headline}\n  (an internal failure of the kotlin-llm engine, not of the snippet; "
        "if the next snippet fails too, restart the kernel)",
    )


class Execution:
    """A submitted snippet (``ScriptExecution``)."""

    def __init__(self, execution: Any, snippet_number: int | None) -> None:
        self._execution = execution
        self._settled = execution.getSettled()
        self.snippet_number = snippet_number

    def cancel(self) -> None:
        """The spec's cancellation: cancels the coroutines of ``await`` and interrupts the session thread."""
        self._execution.cancel(True)

    @property
    def cancelled(self) -> bool:
        return bool(self._execution.isCancelled())

    def is_settled(self) -> bool:
        return bool(self._settled.isDone())

    def wait(self, timeout_ms: int) -> bool:
        """Waits up to ``timeout_ms`` for the snippet to finish (cancelled or not); True when it has."""
        try:
            self._settled.get(jpype.JLong(timeout_ms), jpype.JClass("java.util.concurrent.TimeUnit").MILLISECONDS)
        except jpype.JClass("java.util.concurrent.TimeoutException"):
            return False
        except jpype.JException:  # settled exceptionally: outcome() reports it
            return True
        return True

    def outcome(self) -> Outcome:
        """Blocks until the snippet has finished, cancelled or not, and returns its result."""
        try:
            result = self._settled.get()
        except jpype.JException as error:
            return _internal_failure(error)
        if result is None:
            return Error(
                phase="EVALUATION",
                message="java.lang.InterruptedException: the snippet was cancelled before it started",
            )
        return to_outcome(result)


class EngineSession:
    """One engine session: its snippets share declarations; its output is captured for :meth:`drain`."""

    def __init__(self, properties: Mapping[str, Any] | None = None, settings: SessionSettings | None = None) -> None:
        session_class = jpype.JClass(f"{PACKAGE}.ScriptSession")
        configuration = _configuration(settings or SessionSettings())
        self._session = session_class.create(properties_to_java(properties or {}), configuration)
        self._output = self._session.getOutput()
        self._closed = False

    @property
    def last_snippet_number(self) -> int:
        return int(self._session.getLastSnippetNumber())

    def submit(self, code: str, snippet_number: int | None = None) -> Execution:
        """Queues ``code`` on the session thread, as ``snippet<N>.kts`` when a number is given."""
        if snippet_number is None:
            return Execution(self._session.executeAsync(jpype.JString(code)), None)
        return Execution(self._session.executeAsync(jpype.JString(code), jpype.JInt(snippet_number)), snippet_number)

    def drain(self, timeout_ms: int = 0) -> list[tuple[str, str]]:
        """Output printed since the last drain, as (stream, text) in order; waits up to ``timeout_ms`` for some."""
        return [(str(chunk.stream), str(chunk.text)) for chunk in self._output.drain(jpype.JLong(timeout_ms))]

    def wait_for_output(self, timeout_ms: int) -> bool:
        """Waits up to ``timeout_ms`` for output to be there, without taking it; True when there is some."""
        return bool(self._output.waitForOutput(jpype.JLong(timeout_ms)))

    def run(self, execution: Execution, on_output: OutputSink, tick_ms: int = 20) -> Outcome:
        """Forwards output while ``execution`` runs (at least every ``tick_ms``), then all of it, then the result.

        Waiting on the execution itself (not on the output queue) returns as soon as the snippet has finished, so
        a quiet snippet's result is not held back by a tick.
        """
        while not execution.wait(tick_ms):
            for stream, text in self.drain(0):
                on_output(stream, text)
        outcome = execution.outcome()
        while chunks := self.drain(0):
            for stream, text in chunks:
                on_output(stream, text)
        return outcome

    def complete(self, code: str, cursor: int) -> Completion | None:
        """Completions at ``cursor`` (a UTF-16 offset)."""
        result = self._session.complete(jpype.JString(code), jpype.JInt(cursor))
        if result is None:
            return None
        return Completion([str(m) for m in result.getMatches()], int(result.getStart()), int(result.getEnd()))

    def inspect(self, code: str, cursor: int) -> str | None:
        """The declaration (and current value) of the name at ``cursor``, or None."""
        found = self._session.inspect(jpype.JString(code), jpype.JInt(cursor))
        return None if found is None else str(found)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._session.close()


def with_output(outcome: Outcome, stdout: str, stderr: str) -> Outcome:
    return dataclasses.replace(outcome, stdout=stdout, stderr=stderr)
