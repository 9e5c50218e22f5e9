"""What the engine sends across JPype (``org.kotlinllm.script.host``), declared once: the Kotlin class each of the
dataclasses it fills is read from, and where a field is not simply its property.

A field ``snake_case`` is read from the Kotlin property ``snakeCase`` (its getter ``getSnakeCase()``, or
``isSnakeCase()`` for a property named ``is…``) and converted by the field's type (:func:`.bridge.from_wire`). A fact
added to the engine is thus added as a Kotlin property and a dataclass field of the same name, and nowhere else;
tests/unit/test_wire.py reads the Kotlin sources and fails when either side has one the other lacks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from .events import ClearOutputEvent, DisplayEvent, InputRequestEvent, OutputEvent, ProcessExitEvent, SettledEvent
from .results import Diagnostic, Error, ResolvedDependency, Value

#: The Kotlin package of the classes named here.
HOST = "org.kotlinllm.script.host"


@dataclass(frozen=True)
class Combined:
    """A field read from several properties: each converted by the type given for it, then ``combine``d."""

    properties: Mapping[str, Any]
    combine: Callable[..., Any]


@dataclass(frozen=True)
class Shape:
    """How one dataclass is read from one Kotlin class of :data:`HOST`."""

    kotlin: str
    python: type
    #: Fields read from a property of another name, or from several properties.
    sources: Mapping[str, str | Combined] = field(default_factory=dict)
    #: Fields the host fills itself (what it collected while the snippet ran): the engine does not send them.
    host: frozenset[str] = frozenset()

    def properties(self, name: str) -> tuple[str, ...]:
        """The Kotlin properties the field ``name`` is read from."""
        source = self.sources.get(name, camel_case(name))
        return tuple(source.properties) if isinstance(source, Combined) else (source,)

    def sent(self) -> list[str]:
        """The fields the engine sends, in the dataclass's order."""
        return [f.name for f in fields(self.python) if f.name not in self.host]

    def read(self) -> set[str]:
        """Every Kotlin property read for this dataclass."""
        return {p for name in self.sent() for p in self.properties(name)}


def camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


def getter(kotlin_property: str) -> str:
    """The JVM getter of a Kotlin property: ``isUnit`` for ``isUnit``, ``getSnippetNumber`` for ``snippetNumber``."""
    if kotlin_property.startswith("is") and kotlin_property[2:3].isupper():
        return kotlin_property
    return "get" + kotlin_property[0].upper() + kotlin_property[1:]


#: The text of a Unit value, which the engine leaves out.
UNIT_TEXT = "kotlin.Unit"


def _value_text(value_text: str | None, is_unit: bool) -> str:
    return UNIT_TEXT if is_unit or value_text is None else value_text


def _position(line: int, column: int) -> tuple[int, int] | None:
    """A 1-based (line, column); None for the engine's line 0: the diagnostic has no location."""
    return (line, column) if line > 0 else None


#: What the host collects itself while a snippet runs, beside its outcome.
_COLLECTED = frozenset({"stdout", "stderr", "displays"})

VALUE = Shape(
    "HostOutcome",
    Value,
    sources={
        "text": Combined({"valueText": str | None, "isUnit": bool}, _value_text),
        "resolved": "resolvedDependencies",
        "data": "valueData",
        "metadata": "valueMetadata",
    },
    host=_COLLECTED,
)
ERROR = Shape("HostOutcome", Error, host=_COLLECTED)
DIAGNOSTIC = Shape(
    "HostDiagnostic",
    Diagnostic,
    sources={
        "start": Combined({"startLine": int, "startColumn": int}, _position),
        "end": Combined({"endLine": int, "endColumn": int}, _position),
    },
)
RESOLVED_DEPENDENCY = Shape("ResolvedDependency", ResolvedDependency)

#: The engine's events (``HostEvent``), by the simple name of their Kotlin class.
EVENTS: dict[str, Shape] = {
    shape.kotlin: shape
    for shape in (
        Shape("OutputEvent", OutputEvent),
        Shape("SettledEvent", SettledEvent),
        Shape("DisplayEvent", DisplayEvent),
        Shape("ClearOutputEvent", ClearOutputEvent),
        Shape("InputRequestEvent", InputRequestEvent),
        Shape("ProcessExitEvent", ProcessExitEvent),
    )
}

#: Every dataclass read from the engine, each with its shape.
SHAPES: dict[type, Shape] = {
    shape.python: shape for shape in (VALUE, ERROR, DIAGNOSTIC, RESOLVED_DEPENDENCY, *EVENTS.values())
}

#: Kotlin properties no dataclass reads, each with why: they serve Kotlin hosts, or reach Python another way.
UNREAD: dict[str, dict[str, str]] = {
    "HostOutcome": {
        "result": "the spec's ScriptResult, for Kotlin hosts; its parts are read (value, warnings, phase, message)",
        "cancelled": "read as SettledEvent.cancelled",
    },
}
