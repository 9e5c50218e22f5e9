"""The wire across JPype (kotlin_llm_kernel/session/wire.py) against the engine's sources: every event, outcome and
diagnostic the engine sends has its dataclass, each field of it is read from a property the Kotlin class has, each
Kotlin property is read (or said why not), the bridge calls only getters the engine has, and no engine sentence is
copied into Python. Read from the sources: no JVM needed."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import kotlin_llm_kernel
import pytest
from kotlin_llm_kernel.session import bridge, wire
from kotlin_llm_kernel.session.results import Phase

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(kotlin_llm_kernel.__file__).parent
ENGINE = ROOT / "jvm/src/main/kotlin/org/kotlinllm/script"
HOST = ENGINE / "host"

#: A top-level declaration (formatted by ktlint: at column 0).
_DECLARATION = re.compile(r"^(?:(?:public|internal|private|sealed|data|enum) )*(?:class|object|interface) (\w+)", re.M)
#: A public property of a class: a constructor's or the body's, both indented once (a companion's are twice).
_PROPERTY = re.compile(r"^    (?:public |override )(?:val|var) (\w+)\b", re.M)
#: Getters of the JDK's own classes that the bridge calls.
JDK_GETTERS = {"getClass", "getName", "getSimpleName", "getBytes", "getKey", "getValue"}


def _classes(*paths: Path) -> dict[str, tuple[set[str], str]]:
    """Each class declared in ``paths``: its public properties and its source."""
    found: dict[str, tuple[set[str], str]] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        starts = list(_DECLARATION.finditer(text))
        for match, following in zip(starts, [*starts[1:], None], strict=True):
            source = text[match.start() : following.start() if following else len(text)]
            found[match.group(1)] = (set(_PROPERTY.findall(source)), source)
    return found


HOST_CLASSES = _classes(*sorted(HOST.glob("*.kt")))


def _properties(kotlin_class: str) -> set[str]:
    assert kotlin_class in HOST_CLASSES, f"no class {kotlin_class} in {HOST.relative_to(ROOT)}"
    return HOST_CLASSES[kotlin_class][0]


def test_every_event_of_the_engine_has_its_dataclass() -> None:
    events = {name for name, (_, source) in HOST_CLASSES.items() if re.search(r"\) : HostEvent\(\)", source)}
    assert len(events) >= 6
    assert events == set(wire.EVENTS)


@pytest.mark.parametrize("shape", list(wire.SHAPES.values()), ids=lambda shape: shape.python.__name__)
def test_each_field_is_read_from_a_property_its_kotlin_class_has(shape: wire.Shape) -> None:
    fields = {field.name for field in wire.fields(shape.python)}
    assert shape.host <= fields and set(shape.sources) <= fields, "a declaration names a field the dataclass lacks"
    missing = {
        name: [p for p in shape.properties(name) if p not in _properties(shape.kotlin)]
        for name in shape.sent()
        if not set(shape.properties(name)) <= _properties(shape.kotlin)
    }
    assert missing == {}, f"fields of {shape.python.__name__} without their property in Kotlin's {shape.kotlin}"


@pytest.mark.parametrize("kotlin_class", sorted({shape.kotlin for shape in wire.SHAPES.values()}))
def test_each_kotlin_property_is_read_or_said_why_not(kotlin_class: str) -> None:
    read = set().union(*(shape.read() for shape in wire.SHAPES.values() if shape.kotlin == kotlin_class))
    unread = set(wire.UNREAD.get(kotlin_class, {}))
    assert unread <= _properties(kotlin_class), "UNREAD names a property the Kotlin class lacks"
    assert not unread & read, "UNREAD names a property that is read"
    assert _properties(kotlin_class) - read - unread == set(), f"properties of {kotlin_class} no dataclass reads"


@pytest.mark.parametrize("shape", list(wire.SHAPES.values()), ids=lambda shape: shape.python.__name__)
def test_the_bridge_reads_each_field_by_its_type(shape: wire.Shape) -> None:
    readings = bridge._fields(shape.python)  # builds the readers only: no JVM needed
    assert [name for name, _ in readings] == shape.sent()


def test_the_phases_are_the_engines() -> None:
    source = (ENGINE / "ScriptResult.kt").read_text(encoding="utf-8")
    match = re.search(r"enum class ExecutionPhase \{([^}]*)\}", source)
    assert match, "no ExecutionPhase in ScriptResult.kt"
    assert typing.get_args(Phase) == tuple(entry.strip() for entry in match.group(1).split(",") if entry.strip())


def test_the_bridge_calls_only_getters_the_engine_has() -> None:
    engine = _classes(*sorted(HOST.glob("*.kt")), ENGINE / "completion" / "Completion.kt")
    getters = {wire.getter(p) for properties, _ in engine.values() for p in properties}
    bridge = (PACKAGE / "session" / "bridge.py").read_text(encoding="utf-8")
    called = set(re.findall(r"\.((?:get|is)[A-Z]\w*)\(", bridge))
    assert called, "the pattern finds the bridge's calls"
    assert called - getters - JDK_GETTERS == set()


def test_python_copies_no_sentence_of_the_engine() -> None:
    source = (ENGINE / "internal/report/NotRun.kt").read_text(encoding="utf-8")
    sentence = re.search(r'const val MESSAGE: String = "([^"]+)"', source)
    assert sentence, "no MESSAGE in NotRun.kt"
    copies = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if sentence.group(1) in path.read_text(encoding="utf-8")
    ]
    assert copies == []


def test_the_getter_of_a_property_is_the_one_the_jvm_has() -> None:
    assert [wire.getter(p) for p in ("snippetNumber", "isUnit", "update", "issue")] == [
        "getSnippetNumber",
        "isUnit",
        "getUpdate",
        "getIssue",
    ]
    assert wire.camel_case("pre_release") == "preRelease"
