"""A parameters cell in Kotlin: the one papermill injects (:func:`declarations`, in the types the notebook's own
parameters cell declares, when it does) and the parameters a cell declares (:func:`declared_parameters`). Pure, so
without papermill."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from .kotlin_literals import CALLS, MAPS, KotlinParameterError, comment, kotlin_literal, kotlin_name
from .kotlin_types import TypedLiterals, parse_type


class Declared(NamedTuple):
    """A parameter declared by a cell: its name, its declared type (or the type of a plain literal or collection
    call; "None" when unknown, as papermill's help expects), its default's source, the help text of its trailing
    comment, and whether it is a ``var``."""

    name: str
    type: str
    default: str
    help: str
    mutable: bool = False


def declarations(
    parameters: Mapping[Any, object],
    heading: str = "Parameters",
    declared: Iterable[Declared] = (),
    read_yaml: Callable[[str], object] | None = None,
) -> str:
    """The source of a parameters cell: the ``heading`` comment, then one ``val name = literal`` per parameter.
    A parameter that the notebook's own parameters cell ``declared`` with a type :func:`parse_type` reads gets a
    literal of that type (``5`` for an ``Int``, ``5.0`` for a ``Double``, ``listOf(1, 2)`` for a ``List<Int>``), a
    ``var`` if it was one, and its type written when nullable; a str for a collection is first read by
    ``read_yaml`` (which raises ValueError on bad text). A value that cannot have the type is an error."""
    cell = {parameter.name: parameter for parameter in declared}
    lines = [comment(heading)]
    for name, value in parameters.items():
        lines.append(_declaration(name, value, cell.get(name) if isinstance(name, str) else None, read_yaml))
    return "\n".join(lines) + "\n"


def _declaration(name: object, value: object, declared: Declared | None, read: Callable[[str], object] | None) -> str:
    where = f"parameter {name!r}"
    keyword = "var" if declared and declared.mutable else "val"
    typed = parse_type(declared.type) if declared else None
    if typed is None or not typed.readable:
        return f"{keyword} {kotlin_name(name)} = {kotlin_literal(value, where).code}"
    about = f"the parameters cell declares {name} as {typed.text}"
    if isinstance(value, str) and typed.name in CALLS and read is not None:
        try:
            parsed = read(value)
        except ValueError as error:
            raise KotlinParameterError(f"{where}: {value!r} is not YAML ({error}); {about}") from None
        value = parsed if isinstance(parsed, (list, dict)) else value
    literal = TypedLiterals(about).literal(value, typed, where)
    annotation = f": {typed.text}" if typed.nullable else ""  # `null` and `5` alone would not be an Int?
    return f"{keyword} {kotlin_name(name)}{annotation} = {literal.code}"


# A declaration's start: `val name`, `var name: Type`, the name maybe in backticks; the rest is after `=`.
_DECLARATION = re.compile(
    r"\s*(?P<keyword>val|var)\s+(?P<name>`[^`\r\n]+`|[^\W\d]\w*)\s*(?::\s*(?P<type>[^=]+?))?\s*=(?P<rest>.*)"
)
_INTEGER = r"[-+]?(?:0[xX][0-9A-Fa-f_]+|0[bB][01_]+|\d[\d_]*)"
_EXPONENT = r"(?:[eE][-+]?\d+)"
_LITERAL_TYPES = (
    (re.compile(_INTEGER + r"[lL]\Z"), "Long"),
    (re.compile(_INTEGER + r"\Z"), "Int"),
    (re.compile(r"[-+]?(?:\d[\d_]*)?\.?\d[\d_]*" + _EXPONENT + r"?[fF]\Z"), "Float"),
    (re.compile(r"[-+]?(?:\d[\d_]*\.\d[\d_]*" + _EXPONENT + r"?|\d[\d_]*" + _EXPONENT + r")\Z"), "Double"),
    (re.compile(r"(?:true|false)\Z"), "Boolean"),
    (re.compile(r'"(?:[^"\\]|\\.)*"\Z'), "String"),
    (re.compile(r"'(?:[^'\\]|\\.[^']*)'\Z"), "Char"),
)
_QUOTED = re.compile(r'"""[\s\S]*?"""|"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
# A collection call: `listOf(…)`, `mutableMapOf<K, V>(…)`, `emptySet<T>()`; its items are checked to be its own.
_COLLECTION_CALL = re.compile(
    r"(?P<call>(?:list|set|map)Of|mutable(?:List|Set|Map)Of|empty(?:List|Set|Map))\s*"
    r"(?:<(?P<args>.*)>)?\s*\((?P<items>.*)\)\Z",
    re.DOTALL,
)
_CALL_KINDS = {call: kind for kind, calls in CALLS.items() for call in calls}
_COMMA = re.compile(",")
_TO = re.compile(r"\s+to\s+")


def declared_parameters(source: str) -> list[Declared]:
    """The ``val``/``var`` declarations of a parameters cell, in order: a declaration goes on over the next lines
    while its brackets are open (``listOf(`` … ``)``), and the ``//`` comment of its last line is its help. Lines
    that declare nothing are skipped."""
    found: list[tuple[str, str | None, list[str], bool]] = []
    depth = 0
    for line in source.splitlines():
        code, _ = _split_comment(line)
        if depth > 0 and found:
            found[-1][2].append(line)
        elif match := _DECLARATION.match(code):
            rest = [line[match.start("rest") :]]
            found.append((match["name"].strip("`"), match["type"], rest, match["keyword"] == "var"))
            code = code[match.start("rest") :]
        else:
            continue
        depth = max(depth + _bracket_balance(code), 0)
    return [_declared(*declaration) for declaration in found]


def _bracket_balance(code: str) -> int:
    unquoted = _QUOTED.sub("", code)
    return sum(unquoted.count(c) for c in "([{") - sum(unquoted.count(c) for c in ")]}")


def _declared(name: str, declared_type: str | None, lines: list[str], mutable: bool) -> Declared:
    parts = [_split_comment(line) for line in lines]
    default = " ".join(code.strip() for code, _ in parts if code.strip())
    help_text = parts[-1][1] or ""
    found = declared_type.strip() if declared_type else _literal_type(default)
    return Declared(name, found, default, help_text, mutable)


def _literal_type(default: str) -> str:
    """The type of a default written as a plain literal (``10`` → ``Int``) or a collection call (``listOf(0)`` →
    ``List<Int>``, ``mapOf(a to b)`` → ``Map`` when the items' types are not literals of one type); else "None"."""
    for pattern, name in _LITERAL_TYPES:
        if pattern.match(default):
            return name
    call = _COLLECTION_CALL.match(default)
    items = _split(call["items"], _COMMA) if call else None
    if call is None or items is None:
        return "None"
    kind = _CALL_KINDS[call["call"]]
    if call["args"] is not None:
        typed = parse_type(f"{kind}<{call['args']}>")
        return typed.text if typed else "None"
    if kind in MAPS:
        pairs = [_split(item, _TO) for item in items]
        if not all(pair and len(pair) == 2 for pair in pairs):
            return kind
        key, value = (_same(_literal_type(pair[side]) for pair in pairs if pair) for side in (0, 1))
        return f"{kind}<{key}, {value}>" if key and value else kind
    item = _same(_literal_type(item) for item in items)
    return f"{kind}<{item}>" if item else kind


def _same(types: Iterable[str]) -> str | None:
    """The one known type of all of ``types``; None when they differ, are unknown or there are none."""
    found = set(types)
    return found.pop() if len(found) == 1 and "None" not in found else None


def _split(text: str, separator: re.Pattern[str]) -> list[str] | None:
    """``text`` split at the ``separator``s outside brackets and quotes, a trailing empty part dropped; None when
    a bracket closes that ``text`` did not open, or one stays open."""
    parts, depth, start, index = [], 0, 0, 0
    while index < len(text):
        if quoted := _QUOTED.match(text, index):
            index = quoted.end()
            continue
        if text[index] in "([{":
            depth += 1
        elif text[index] in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and (found := separator.match(text, index)):
            parts.append(text[start:index].strip())
            start = index = found.end()
            continue
        index += 1
    parts.append(text[start:].strip())
    if not parts[-1]:
        parts.pop()
    return parts if depth == 0 else None


def _split_comment(line: str) -> tuple[str, str | None]:
    """``line``'s code and the text of its ``//`` comment (None without one), skipping ``//`` inside strings."""
    quote: str | None = None
    index = 0
    while index < len(line):
        if quote:
            if line[index] == "\\" and quote != '"""':
                index += 1
            elif line.startswith(quote, index):
                index += len(quote) - 1
                quote = None
        elif line.startswith('"""', index):
            quote = '"""'
            index += 2
        elif line[index] in "\"'":
            quote = line[index]
        elif line.startswith("//", index):
            return line[:index], line[index + 2 :].strip()
        index += 1
    return line, None
