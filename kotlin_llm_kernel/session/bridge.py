"""The Python face of the engine's host API (``org.kotlinllm.script.host``): the only module touching its objects.

Everything leaves here as Python data: events (:mod:`.events`) and outcomes (:mod:`.results`), read field by field
as :mod:`.wire` declares (:func:`from_wire`), and completions; every string crosses here (:func:`python_text`,
:func:`java_string`), where lone surrogates become U+FFFD; and every offset is a Python (code point) index, converted
here from and to the engine's UTF-16 offsets.

The JVM must be running (:func:`kotlin_llm_kernel.jvm.jvm.start_jvm`) before anything here is used. Snippets run on
the engine's own session thread; nothing here runs Kotlin on the calling thread, so callers stay interruptible.
"""

from __future__ import annotations

import functools
import json
import threading
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jpype

from ..config.request import SessionRequest
from . import wire
from .events import Event
from .jvmti import ThreadStopper
from .results import Error, Outcome, Value
from .surrogates import replace_lone_surrogates
from .wire import HOST


def python_text(value: Any) -> str:
    """A Java string (or any Java object's ``toString()``) as a Python str, each lone surrogate as U+FFFD.

    JPype decodes Java strings as UTF-8, which a lone surrogate (half of a UTF-16 pair, legal in a Java string)
    breaks; Java's own UTF-16 encoder writes U+FFFD for it instead.
    """
    try:
        return str(value)
    except UnicodeDecodeError:
        utf16 = jpype.JClass("java.nio.charset.StandardCharsets").UTF_16LE
        return bytes(value.toString().getBytes(utf16)).decode("utf-16-le")


def java_string(text: str) -> Any:
    """A Python str as a Java string, each lone surrogate as U+FFFD (JPype cannot encode them)."""
    return jpype.JString(replace_lone_surrogates(text))


@dataclass(frozen=True)
class CompletionItem:
    """One completion: the text to insert, its kind (``function``, ``property``, ``class``, …) and its signature."""

    text: str
    type: str
    signature: str


@dataclass(frozen=True)
class Completion:
    """Completions replacing ``code[start:end]`` (code point offsets); ``items`` empty: the matches are names only."""

    matches: list[str]
    start: int
    end: int
    items: list[CompletionItem] = field(default_factory=list)
    by_type: bool = False
    #: Milliseconds it waited for the compiler to start (asked right after the session's start).
    waited_ms: int = 0
    #: Why the matches are names rather than by type; None when ``by_type``.
    fallback: str | None = None


@dataclass(frozen=True)
class Inspection:
    """The declaration (and current value) of a name, or None ``text``; how it was found, as in :class:`Completion`."""

    text: str | None
    by_type: bool
    waited_ms: int = 0
    fallback: str | None = None


def to_java(value: Any) -> Any:
    """The Java object for a JSON-like Python value.

    Provided properties are typed by their value's class on the JVM side, so the Java class chosen here is the type
    a snippet sees: ``str`` → ``String``, ``bool`` → ``Boolean``, ``int`` → ``Long``, ``float`` → ``Double``,
    ``list`` → ``List``, ``dict`` → ``Map`` (string keys), ``None`` → ``null``. Any Java object passes through.
    """
    if value is None:
        return None
    if isinstance(value, jpype.JObject):
        return value
    if isinstance(value, bool):
        return jpype.JClass("java.lang.Boolean").valueOf(value)
    if isinstance(value, int):
        return jpype.JClass("java.lang.Long").valueOf(value)
    if isinstance(value, float):
        return jpype.JClass("java.lang.Double").valueOf(value)
    if isinstance(value, str):
        return java_string(value)
    if isinstance(value, Mapping):
        result = jpype.JClass("java.util.LinkedHashMap")()
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"map keys must be strings, not {type(key).__name__} ({key!r})")
            result.put(java_string(key), to_java(item))
        return result
    if isinstance(value, Sequence):
        result = jpype.JClass("java.util.ArrayList")()
        for item in value:
            result.add(to_java(item))
        return result
    raise TypeError(f"cannot provide a {type(value).__name__} to Kotlin; use str, int, float, bool, list, dict or None")


_BOXED: dict[str, Callable[[Any], Any]] = {
    "java.lang.String": python_text,
    "java.lang.Character": python_text,
    "java.lang.Boolean": bool,
    "java.lang.Integer": int,
    "java.lang.Long": int,
    "java.lang.Short": int,
    "java.lang.Byte": int,
    "java.lang.Double": float,
    "java.lang.Float": float,
}


def to_python(value: Any) -> Any:
    """Java strings and boxed primitives as Python values; ``null`` as None; other objects unchanged."""
    if value is None or not isinstance(value, jpype.JObject):
        return value
    convert = _BOXED.get(str(value.getClass().getName()))
    return convert(value) if convert is not None else value


def utf16_offset(text: str, index: int) -> int:
    """A Python (code point) index as a Java (UTF-16) index."""
    return len(text[:index].encode("utf-16-le")) // 2


def code_point_offset(text: str, utf16_index: int) -> int:
    """A Java (UTF-16) index as a Python (code point) index."""
    return len(text.encode("utf-16-le")[: utf16_index * 2].decode("utf-16-le", errors="ignore"))


def kotlin_version() -> str:
    return str(jpype.JClass("kotlin.KotlinVersion").CURRENT)


def _optional_string(value: Any) -> str | None:
    return None if value is None else python_text(value)


#: The engine's JSON content of a bundle, sent as text to be parsed once (not value by value through JPype).
_JSON_TEXT = f"{HOST}.JsonText"


def from_java(value: Any) -> Any:
    """JSON-like Java data (what the engine sends as bundles and their metadata) as Python data: ``Map`` → dict
    (string keys), ``List`` → list, strings, numbers, booleans, ``null`` → None, and a ``JsonText`` parsed."""
    if value is None or not isinstance(value, jpype.JObject):
        return value
    name = str(value.getClass().getName())
    if (convert := _BOXED.get(name)) is not None:
        return convert(value)
    if name == _JSON_TEXT:
        return json.loads(python_text(value.getText()))
    if name == "java.math.BigInteger":
        return int(str(value.toString()))
    if isinstance(value, jpype.JClass("java.util.Map")):
        return {python_text(entry.getKey()): from_java(entry.getValue()) for entry in value.entrySet()}
    if isinstance(value, jpype.JClass("java.util.Collection")):
        return [from_java(item) for item in value]
    raise TypeError(f"the engine sent a {name} where JSON-like data was expected")


def _literal(allowed: tuple[str, ...], value: Any) -> str:
    text = python_text(value)
    if text not in allowed:
        raise ValueError(f"the engine sent {text!r}, which this package does not know (one of {allowed})")
    return text


def _reader(kind: Any) -> Callable[[Any], Any]:
    """How a value the engine sent becomes a field of type ``kind``: by the type alone, so that a field added to a
    dataclass and its Kotlin class needs nothing here."""
    if kind is str:
        return python_text
    if kind is int or kind is bool:
        return kind
    if kind is Any:
        return to_python
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is typing.Literal:
        return functools.partial(_literal, args)
    if origin is dict:
        return from_java
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _reader(args[0])
        return lambda value: tuple(item(element) for element in value)
    if set(args) == {Value, Error}:
        return to_outcome
    if type(None) in args and len(args) == 2:
        present = _reader(next(arg for arg in args if arg is not type(None)))
        return lambda value: None if value is None else present(value)
    if kind in wire.SHAPES:
        return functools.partial(from_wire, wire.SHAPES[kind])
    raise TypeError(f"no reading of {kind!r} from the engine")


@functools.cache
def _fields(kind: type) -> list[tuple[str, Callable[[Any], Any]]]:
    """Each field of ``kind`` that the engine sends, with how it is read from the engine's object."""
    shape = wire.SHAPES[kind]
    types = typing.get_type_hints(kind)
    readers: list[tuple[str, Callable[[Any], Any]]] = []
    for name in shape.sent():
        source = shape.sources.get(name)
        if isinstance(source, wire.Combined):
            parts = [(wire.getter(p), _reader(t)) for p, t in source.properties.items()]
            readers.append((name, _combined(parts, source.combine)))
        else:
            readers.append((name, _property(wire.getter(shape.properties(name)[0]), _reader(types[name]))))
    return readers


def _property(getter: str, read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda sent: read(getattr(sent, getter)())


def _combined(parts: list[tuple[str, Callable[[Any], Any]]], combine: Callable[..., Any]) -> Callable[[Any], Any]:
    return lambda sent: combine(*(read(getattr(sent, getter)()) for getter, read in parts))


def from_wire(shape: wire.Shape, sent: Any) -> Any:
    """The dataclass of ``shape`` read from the engine's object ``sent`` (see :mod:`.wire`)."""
    return shape.python(**{name: read(sent) for name, read in _fields(shape.python)})


def to_outcome(outcome: Any) -> Outcome:
    """The Python form of a ``HostOutcome``: an :class:`.Error` when it names one, else a :class:`.Value`."""
    return typing.cast(Outcome, from_wire(wire.VALUE if outcome.getEname() is None else wire.ERROR, outcome))


def to_event(event: Any) -> Event:
    """The Python form of a ``HostEvent``."""
    return typing.cast(Event, from_wire(wire.EVENTS[str(event.getClass().getSimpleName())], event))


@functools.cache
def not_run_evalue() -> str:
    """The engine's words for a snippet cancelled while it compiled (``HostExecution.NOT_RUN``)."""
    return python_text(jpype.JClass(f"{HOST}.HostExecution").NOT_RUN)


#: Serializes the stops of all sessions of the process: they share the engine's ``StopTarget``.
_stops = threading.Lock()


class Execution:
    """A submitted snippet (``HostExecution``); it settles with a :class:`.events.SettledEvent`."""

    def __init__(self, execution: Any) -> None:
        self._execution = execution
        self.snippet_number = int(execution.getSnippetNumber())

    def cancel(self) -> None:
        """The spec's cancellation: cancels the coroutines of ``await`` and interrupts the session thread."""
        self._execution.cancel()

    @property
    def cancelled(self) -> bool:
        return bool(self._execution.isCancelled())

    @property
    def evaluating(self) -> bool:
        """Whether the snippet is running its code (compiled, not settled)."""
        return bool(self._execution.isEvaluating())

    @property
    def run_seconds(self) -> float:
        """Seconds the snippet has run: compiling and evaluating, without its waits for dependencies and input (the
        engine's ``RunClock``); 0 before it starts."""
        return int(self._execution.getRunMillis()) / 1000

    def await_settled(self, timeout: float) -> bool:
        """Waits up to ``timeout`` seconds for the snippet to settle; whether it has."""
        return bool(self._execution.awaitSettled(jpype.JLong(max(0, round(timeout * 1000)))))

    def stop(self, stopper: ThreadStopper) -> bool:
        """Throws the engine's ``SnippetInterruptedError`` into the session's thread if it still evaluates this
        snippet (not while it compiles: the compiler's state must stay whole); whether a stop was sent."""
        monitor = self._execution.getStopMonitor()
        target = jpype.JClass(f"{HOST}.StopTarget")
        with _stops, jpype.synchronized(monitor):  # StopTarget holds one stop at a time
            if not self._execution.prepareStop():
                return False
            try:
                stopper.stop_target()
            finally:
                target.clear()
        return True

    @property
    def not_run_evalue(self) -> str:
        return not_run_evalue()

    def top_frames(self, limit: int) -> list[str]:
        """The top frames of the session's thread while it runs this snippet (empty once it settled)."""
        return [python_text(frame) for frame in self._execution.topFrames(jpype.JInt(limit))]


class EngineSession:
    """One engine session (``HostSession``): its snippets share declarations; its output comes as events."""

    def __init__(self, request: SessionRequest) -> None:
        timeout = request.resolution_timeout
        settings = (  # each setting not given keeps the engine's default
            jpype.JClass(f"{HOST}.HostSettings")
            .builder()
            .localRepository(request.local_repository)
            .repositories(to_java(request.repositories) if request.repositories else None)
            .resolutionTimeoutMillis(None if timeout is None else to_java(round(timeout * 1000)))
            .maxDisplayBytes(to_java(request.max_display_bytes))
            .build()
        )
        self._session = jpype.JClass(f"{HOST}.HostSession").create(to_java(request.properties), settings)
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def last_snippet_number(self) -> int:
        return int(self._session.getLastSnippetNumber())

    def submit(self, code: str, snippet_number: int | None = None, allow_stdin: bool = False) -> Execution:
        """Queues ``code`` on the session thread, as ``snippet<N>.kts`` when a number is given, else the next.

        With ``allow_stdin`` its reads of ``System.in`` come as :class:`.events.InputRequestEvent` s to answer with
        :meth:`answer_input`; without, they fail at once with the engine's located ``StdinNotAllowedException``.
        """
        if allow_stdin:  # the engine takes the allowance only with a snippet number
            number = self.last_snippet_number + 1 if snippet_number is None else snippet_number
            return Execution(self._session.submit(java_string(code), jpype.JInt(number), jpype.JBoolean(True)))
        if snippet_number is None:
            return Execution(self._session.submit(java_string(code)))
        return Execution(self._session.submit(java_string(code), jpype.JInt(snippet_number)))

    def check(self, code: str) -> Outcome:
        """Compiles ``code`` as the next snippet would be, after the snippets submitted before it, and returns the
        compilation's :class:`.Error`, or a Unit :class:`.Value` with its warnings; nothing runs and the session does
        not change (the next snippet keeps its number)."""
        return to_outcome(self._session.check(java_string(code)))

    def answer_input(self, request_id: int, value: str | None) -> None:
        """Answers an input request with a line (its line end is added) or None (end of input); a withdrawn or
        unknown request is ignored."""
        self._session.answerInput(jpype.JLong(request_id), None if value is None else java_string(value))

    def report_exits(self, timeout_millis: int) -> None:
        """From now on, an exit of the process by code the engine does not rewrite comes as a
        :class:`.events.ProcessExitEvent` and waits up to ``timeout_millis`` for :meth:`exit_reported`."""
        self._session.reportExits(jpype.JLong(timeout_millis))

    def exit_reported(self) -> None:
        """The client was told of the :class:`.events.ProcessExitEvent`: the exit goes on."""
        self._session.exitReported()

    def next_events(self, timeout_millis: int) -> list[Event]:
        """Waits up to ``timeout_millis`` for events and returns all there are, in order (none once closed)."""
        return [to_event(event) for event in self._session.nextEvents(jpype.JLong(timeout_millis))]

    def complete(self, code: str, cursor: int) -> Completion:
        code = replace_lone_surrogates(code)  # as the engine sees it, for the offsets (its length does not change)
        found = self._session.complete(java_string(code), jpype.JInt(utf16_offset(code, cursor)))
        start, end = code_point_offset(code, int(found.getStart())), code_point_offset(code, int(found.getEnd()))
        items = [
            CompletionItem(python_text(item.getText()), python_text(item.getType()), python_text(item.getSignature()))
            for item in found.getItems()
        ]
        return Completion(
            [python_text(m) for m in found.getMatches()],
            start,
            end,
            items,
            bool(found.getByType()),
            int(found.getWaitedMillis()),
            _optional_string(found.getFallback()),
        )

    def inspect(self, code: str, cursor: int) -> str | None:
        """The declaration (and current value) of the name at ``cursor``, or None."""
        return self.inspection(code, cursor).text

    def inspection(self, code: str, cursor: int) -> Inspection:
        """:meth:`inspect`, with how it was found."""
        code = replace_lone_surrogates(code)  # as the engine sees it, for the offsets (its length does not change)
        found = self._session.inspection(java_string(code), jpype.JInt(utf16_offset(code, cursor)))
        return Inspection(
            _optional_string(found.getText()),
            bool(found.getByType()),
            int(found.getWaitedMillis()),
            _optional_string(found.getFallback()),
        )

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._session.close()
