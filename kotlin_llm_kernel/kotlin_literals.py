"""Python values (papermill's parameters: what JSON and YAML give) as Kotlin source: literals with their static types,
names, the declarations of a parameters cell, and the parameters a cell declares. Pure, so without papermill."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

# Hard keywords: not names unless in backticks. Soft and modifier keywords (`by`, `value`, `open`, …) are names.
HARD_KEYWORDS = frozenset(
    "as break class continue do else false for fun if in interface is null object package return super this throw "
    "true try typealias typeof val var when while".split()
)
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_UNDERSCORES = re.compile(r"_+\Z")  # `_`, `__`, … are reserved unless in backticks
# What the Kotlin compiler refuses in a backticked name on the JVM (and what would end the backticks or the line).
_NOT_IN_BACKTICKS = ".;[]/<>:\\`\r\n"

_ESCAPES = {"\\": "\\\\", '"': '\\"', "$": "\\$", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b"}
# Characters written as \uXXXX: controls, invisible format characters (bidi overrides, zero-width ones), surrogates,
# private use, unassigned, line and paragraph separators, and spaces other than U+0020, so the cell shows them.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_NULL = "Nothing?"


class KotlinParameterError(ValueError):
    """A parameter that has no Kotlin declaration; the message names the parameter and where in its value."""


@dataclass(frozen=True)
class Literal:
    """Kotlin source for a value, and the static type the compiler infers for it (``Nothing?`` for ``null``)."""

    code: str
    type: str


class Declared(NamedTuple):
    """A parameter declared by a cell: its name, its declared type (or the type of a plain literal; "None" when
    unknown, as papermill's help expects), its default's source, and the help text of its trailing comment."""

    name: str
    type: str
    default: str
    help: str


def kotlin_name(name: object) -> str:
    """``name`` as a Kotlin property name: as it is when it is one, else in backticks; an error when the compiler
    accepts it in neither form."""
    if not isinstance(name, str):
        raise KotlinParameterError(f"parameter {name!r}: a name must be a string, not {type(name).__name__}")
    if _PLAIN_NAME.match(name) and name not in HARD_KEYWORDS and not _UNDERSCORES.match(name):
        return name
    refused = sorted({c for c in name if c in _NOT_IN_BACKTICKS})
    if not name or refused:
        shown = ", ".join(repr(c) for c in refused) if refused else "nothing"
        raise KotlinParameterError(
            f"parameter {name!r}: not a Kotlin name, even in backticks (it contains {shown}); "
            "rename it (letters, digits and _ always work)"
        )
    return f"`{name}`"


def kotlin_string(text: str) -> str:
    """A Kotlin string literal of ``text``: ``$``, quotes, backslashes and line breaks escaped, invisible characters
    as ``\\uXXXX`` (surrogate pairs beyond U+FFFF); printable ones such as ``é`` or ``日`` kept as they are."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char != " " and unicodedata.category(char) in _ESCAPED_CATEGORIES:
            out.append(_unicode_escape(ord(char)))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _unicode_escape(code: int) -> str:
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"


def kotlin_literal(value: object, where: str = "") -> Literal:
    """``value`` as Kotlin source: ``None`` → ``null``, bool → ``true``/``false``, int → ``5L`` (a
    ``java.math.BigInteger`` beyond Long), float → a Double literal (``Double.NaN``, ``Double.POSITIVE_INFINITY``…),
    str → an escaped string, list or tuple → ``listOf(…)``, dict → ``mapOf(k to v, …)``. A collection whose items
    differ in type says its type (``listOf<Any>(…)``, ``mapOf<String, Any?>(…)``), as does an empty one
    (``emptyList<Any?>()``), so every declaration compiles. ``where`` locates ``value`` in an error."""
    if value is None:
        return Literal("null", _NULL)
    if isinstance(value, bool):
        return Literal("true" if value else "false", "Boolean")
    if isinstance(value, int):
        return _integer(value)
    if isinstance(value, float):
        return _double(value)
    if isinstance(value, str):
        return Literal(kotlin_string(value), "String")
    if isinstance(value, (list, tuple)):
        return _list(value, where)
    if isinstance(value, dict):
        return _map(value, where)
    raise KotlinParameterError(
        f"{where or 'the value'}: {type(value).__name__} has no Kotlin literal "
        "(give a str, int, float, bool, None, list or dict)"
    )


def _integer(value: int) -> Literal:
    if value == _LONG_MIN:
        return Literal("Long.MIN_VALUE", "Long")  # its literal is out of range: the minus is applied to 2^63
    if _LONG_MIN < value <= _LONG_MAX:
        return Literal(f"{value}L", "Long")
    return Literal(f'java.math.BigInteger("{value}")', "java.math.BigInteger")


def _double(value: float) -> Literal:
    if math.isnan(value):
        return Literal("Double.NaN", "Double")
    if math.isinf(value):
        return Literal("Double.POSITIVE_INFINITY" if value > 0 else "Double.NEGATIVE_INFINITY", "Double")
    # repr is the shortest text that reads back as the same double, and always has a "." or an exponent.
    return Literal(repr(value), "Double")


def _common_type(types: list[str]) -> tuple[str, bool]:
    """The type Kotlin infers for items of ``types``, and whether it must be written: one type (nullable with a
    null beside it) is inferred as it is; mixed types, only nulls or none at all are written as ``Any``/``Any?``."""
    nullable = _NULL in types
    others = set(types) - {_NULL}
    if len(others) == 1:
        (only,) = others
        return (f"{only}?" if nullable else only), False
    return ("Any?" if nullable or not others else "Any"), True


def _list(items: list[object] | tuple[object, ...], where: str) -> Literal:
    if not items:
        return Literal("emptyList<Any?>()", "List<Any?>")
    literals = [kotlin_literal(item, f"{where}[{index}]") for index, item in enumerate(items)]
    item_type, written = _common_type([literal.type for literal in literals])
    call = f"listOf<{item_type}>" if written else "listOf"
    return Literal(f"{call}({', '.join(literal.code for literal in literals)})", f"List<{item_type}>")


def _map(entries: dict[object, object], where: str) -> Literal:
    if not entries:
        return Literal("emptyMap<String, Any?>()", "Map<String, Any?>")
    keys = [kotlin_literal(key, f"{where} (a key)") for key in entries]
    values = [kotlin_literal(value, f"{where}[{key!r}]") for key, value in entries.items()]
    key_type, key_written = _common_type([key.type for key in keys])
    value_type, value_written = _common_type([value.type for value in values])
    call = f"mapOf<{key_type}, {value_type}>" if key_written or value_written else "mapOf"
    pairs = ", ".join(f"{key.code} to {value.code}" for key, value in zip(keys, values, strict=True))
    return Literal(f"{call}({pairs})", f"Map<{key_type}, {value_type}>")


def comment(text: str) -> str:
    """``text`` as Kotlin line comments, one per line."""
    return "\n".join(f"// {line}".rstrip() for line in text.split("\n"))


def declarations(parameters: Mapping[Any, object], heading: str = "Parameters") -> str:
    """The source of a parameters cell: the ``heading`` comment, then one ``val name = literal`` per parameter."""
    lines = [comment(heading)]
    for name, value in parameters.items():
        declared = kotlin_name(name)
        lines.append(f"val {declared} = {kotlin_literal(value, f'parameter {name!r}').code}")
    return "\n".join(lines) + "\n"


# A declaration's start: `val name`, `var name: Type`, the name maybe in backticks; the rest is after `=`.
_DECLARATION = re.compile(
    r"\s*(?:val|var)\s+(?P<name>`[^`\r\n]+`|[^\W\d]\w*)\s*(?::\s*(?P<type>[^=]+?))?\s*=(?P<rest>.*)"
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


def declared_parameters(source: str) -> list[Declared]:
    """The ``val``/``var`` declarations of a parameters cell, in order: a declaration goes on over the next lines
    while its brackets are open (``listOf(`` … ``)``), and the ``//`` comment of its last line is its help. Lines
    that declare nothing are skipped."""
    found: list[tuple[str, str | None, list[str]]] = []
    depth = 0
    for line in source.splitlines():
        code, _ = _split_comment(line)
        if depth > 0 and found:
            found[-1][2].append(line)
        elif match := _DECLARATION.match(code):
            found.append((match["name"].strip("`"), match["type"], [line[match.start("rest") :]]))
            code = code[match.start("rest") :]
        else:
            continue
        depth = max(depth + _bracket_balance(code), 0)
    return [_declared(name, declared_type, lines) for name, declared_type, lines in found]


def _bracket_balance(code: str) -> int:
    unquoted = _QUOTED.sub("", code)
    return sum(unquoted.count(c) for c in "([{") - sum(unquoted.count(c) for c in ")]}")


def _declared(name: str, declared_type: str | None, lines: list[str]) -> Declared:
    parts = [_split_comment(line) for line in lines]
    default = " ".join(code.strip() for code, _ in parts if code.strip())
    help_text = parts[-1][1] or ""
    return Declared(name, declared_type.strip() if declared_type else _literal_type(default), default, help_text)


def _literal_type(default: str) -> str:
    for pattern, name in _LITERAL_TYPES:
        if pattern.match(default):
            return name
    return "None"


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
