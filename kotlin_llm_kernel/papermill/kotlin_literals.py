"""Python values (papermill's parameters: what JSON and YAML give) as Kotlin source: literals with their static types,
names, the declarations of a parameters cell (in the types the notebook's own parameters cell declares, when it
does), and the parameters a cell declares. Strings are written by ``session/kotlin_strings.py``, as the MCP server's
are. Pure, so without papermill."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..session.kotlin_strings import kotlin_string

# Hard keywords: not names unless in backticks. Soft and modifier keywords (`by`, `value`, `open`, …) are names.
HARD_KEYWORDS = frozenset(
    "as break class continue do else false for fun if in interface is null object package return super this throw "
    "true try typealias typeof val var when while".split()
)
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_UNDERSCORES = re.compile(r"_+\Z")  # `_`, `__`, … are reserved unless in backticks
# What the Kotlin compiler refuses in a backticked name on the JVM (and what would end the backticks or the line).
_NOT_IN_BACKTICKS = ".;[]/<>:\\`\r\n"

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_FLOAT_MAX = 3.4028234663852886e38
_NULL = "Nothing?"
# The types a parameters cell can give a parameter that the translator writes literals of: scalars, and collections
# with the call that builds one with items and the one without.
_SCALARS = frozenset({"Int", "Long", "Double", "Float", "String", "Boolean"})
_CALLS = {
    "List": ("listOf", "emptyList"),
    "MutableList": ("mutableListOf", "mutableListOf"),
    "Set": ("setOf", "emptySet"),
    "MutableSet": ("mutableSetOf", "mutableSetOf"),
    "Map": ("mapOf", "emptyMap"),
    "MutableMap": ("mutableMapOf", "mutableMapOf"),
}
_MAPS = frozenset({"Map", "MutableMap"})


class KotlinParameterError(ValueError):
    """A parameter that has no Kotlin declaration; the message names the parameter and where in its value."""


@dataclass(frozen=True)
class Literal:
    """Kotlin source for a value, and the static type the compiler infers for it (``Nothing?`` for ``null``)."""

    code: str
    type: str


class Declared(NamedTuple):
    """A parameter declared by a cell: its name, its declared type (or the type of a plain literal or collection
    call; "None" when unknown, as papermill's help expects), its default's source, the help text of its trailing
    comment, and whether it is a ``var``."""

    name: str
    type: str
    default: str
    help: str
    mutable: bool = False


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


def _list(items: list[object] | tuple[object, ...], where: str, kind: str = "List") -> Literal:
    call, empty = _CALLS[kind]
    if not items:
        return Literal(f"{empty}<Any?>()", f"{kind}<Any?>")
    literals = [kotlin_literal(item, f"{where}[{index}]") for index, item in enumerate(items)]
    item_type, written = _common_type([literal.type for literal in literals])
    call = f"{call}<{item_type}>" if written else call
    return Literal(f"{call}({', '.join(literal.code for literal in literals)})", f"{kind}<{item_type}>")


def _map(entries: dict[object, object], where: str, kind: str = "Map") -> Literal:
    call, empty = _CALLS[kind]
    if not entries:
        return Literal(f"{empty}<String, Any?>()", f"{kind}<String, Any?>")
    keys = [kotlin_literal(key, f"{where} (a key)") for key in entries]
    values = [kotlin_literal(value, f"{where}[{key!r}]") for key, value in entries.items()]
    key_type, key_written = _common_type([key.type for key in keys])
    value_type, value_written = _common_type([value.type for value in values])
    call = f"{call}<{key_type}, {value_type}>" if key_written or value_written else call
    pairs = ", ".join(f"{key.code} to {value.code}" for key, value in zip(keys, values, strict=True))
    return Literal(f"{call}({pairs})", f"{kind}<{key_type}, {value_type}>")


def comment(text: str) -> str:
    """``text`` as Kotlin line comments, one per line."""
    return "\n".join(f"// {line}".rstrip() for line in text.split("\n"))


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
    if isinstance(value, str) and typed.name in _CALLS and read is not None:
        try:
            parsed = read(value)
        except ValueError as error:
            raise KotlinParameterError(f"{where}: {value!r} is not YAML ({error}); {about}") from None
        value = parsed if isinstance(parsed, (list, dict)) else value
    literal = _Typing(about).literal(value, typed, where)
    annotation = f": {typed.text}" if typed.nullable else ""  # `null` and `5` alone would not be an Int?
    return f"{keyword} {kotlin_name(name)}{annotation} = {literal.code}"


@dataclass(frozen=True)
class KotlinType:
    """A type as a parameters cell writes it: its name (without a ``kotlin.`` or ``kotlin.collections.`` package),
    its type arguments (none for a collection whose item types are unknown: ``listOf(a, b)``), whether it is
    nullable, and its source text."""

    name: str
    args: tuple[KotlinType, ...]
    nullable: bool
    text: str

    @property
    def readable(self) -> bool:
        """Whether the translator writes literals of this type (else a value gets its own literal)."""
        return self.name in _SCALARS or self.name in _CALLS

    @property
    def inferred(self) -> bool:
        """Whether a literal of this type without type arguments has exactly this type."""
        if self.nullable or not self.readable:
            return False
        return self.name in _SCALARS or (len(self.args) > 0 and all(arg.inferred for arg in self.args))


_TYPE_TOKEN = re.compile(r"\s*(?:(?P<name>[^\W\d]\w*(?:\s*\.\s*[^\W\d]\w*)*)|(?P<mark>[<>,?]))")


def parse_type(text: str) -> KotlinType | None:
    """``text`` as a :class:`KotlinType`: a name, maybe ``<type arguments>``, maybe ``?``; None for what is not one
    (variance, ``*``, function types) or a collection with the wrong number of type arguments."""
    tokens: list[str] = []
    index, text = 0, text.strip()
    while index < len(text):
        match = _TYPE_TOKEN.match(text, index)
        if match is None:
            return None
        tokens.append(match["name"] or match["mark"])
        index = match.end()
    parsed = _parse_type(tokens, 0)
    return parsed[0] if parsed and parsed[1] == len(tokens) else None


def _parse_type(tokens: list[str], index: int) -> tuple[KotlinType, int] | None:
    if index >= len(tokens) or tokens[index] in "<>,?":
        return None
    written = re.sub(r"\s+", "", tokens[index])
    name = re.sub(r"\Akotlin\.(?:collections\.)?(?=[^.]+\Z)", "", written)
    index += 1
    args: list[KotlinType] = []
    if index < len(tokens) and tokens[index] == "<":
        while True:
            parsed = _parse_type(tokens, index + 1)
            if parsed is None or parsed[1] >= len(tokens) or tokens[parsed[1]] not in ",>":
                return None
            args.append(parsed[0])
            index = parsed[1]  # at the "," before the next argument, or the closing ">"
            if tokens[index] == ">":
                index += 1
                break
    nullable = index < len(tokens) and tokens[index] == "?"
    index += nullable
    if args and (name in _SCALARS or (name in _CALLS and len(args) != (2 if name in _MAPS else 1))):
        return None
    text = written + (f"<{', '.join(arg.text for arg in args)}>" if args else "") + ("?" if nullable else "")
    return KotlinType(name, tuple(args), nullable, text), index


@dataclass(frozen=True)
class _Typing:
    """Literals of declared types; ``about`` (what the parameters cell declares) ends each error."""

    about: str

    def literal(self, value: object, typed: KotlinType, where: str) -> Literal:
        if not typed.readable:
            return kotlin_literal(value, where)
        if value is None and typed.nullable:
            return Literal("null", typed.text)
        if typed.name in _CALLS:
            return Literal(self._collection(value, typed, where), typed.text)
        return Literal(self._scalar(value, typed, where), typed.text)

    def _scalar(self, value: object, typed: KotlinType, where: str) -> str:
        name = typed.name
        if name == "String" and isinstance(value, str):
            return kotlin_string(value)
        if name == "String":
            hint = " (papermill's -p reads numbers, True, False and None; -r passes text as it is)"
            raise self._not(value, typed, where, hint)
        if name == "Boolean" and isinstance(value, bool):
            return "true" if value else "false"
        if name in ("Int", "Long") and isinstance(value, int) and not isinstance(value, bool):
            low, high = (_INT_MIN, _INT_MAX) if name == "Int" else (_LONG_MIN, _LONG_MAX)
            if not low <= value <= high:
                raise KotlinParameterError(f"{where}: {value} does not fit in {name} ({low}..{high}); {self.about}")
            # the literal of the minimum is out of range: the minus is applied to 2^31 (2^63)
            return f"{name}.MIN_VALUE" if value == low else f"{value}L" if name == "Long" else str(value)
        if name in ("Double", "Float") and isinstance(value, (int, float)) and not isinstance(value, bool):
            return self._floating(value, name, where)
        raise self._not(value, typed, where)

    def _floating(self, value: float, name: str, where: str) -> str:
        try:
            number = float(value)
        except OverflowError:
            raise KotlinParameterError(f"{where}: {value} does not fit in {name}; {self.about}") from None
        if name == "Double":
            return _double(number).code
        if math.isnan(number):
            return "Float.NaN"
        if math.isinf(number):
            return "Float.POSITIVE_INFINITY" if number > 0 else "Float.NEGATIVE_INFINITY"
        if abs(number) > _FLOAT_MAX:
            raise KotlinParameterError(f"{where}: {value} does not fit in Float; {self.about}")
        return f"{number!r}f"

    def _collection(self, value: object, typed: KotlinType, where: str) -> str:
        call, empty = _CALLS[typed.name]
        written = "" if all(arg.inferred for arg in typed.args) else f"<{', '.join(a.text for a in typed.args)}>"
        if typed.name in _MAPS and isinstance(value, dict):
            if not typed.args:
                return _map(value, where, typed.name).code
            key_type, value_type = typed.args
            pairs = [
                f"{self.literal(key, key_type, f'{where} (a key)').code} to "
                f"{self.literal(item, value_type, f'{where}[{key!r}]').code}"
                for key, item in value.items()
            ]
        elif typed.name not in _MAPS and isinstance(value, (list, tuple)):
            if not typed.args:
                return _list(value, where, typed.name).code
            pairs = [self.literal(item, typed.args[0], f"{where}[{index}]").code for index, item in enumerate(value)]
        else:
            raise self._not(value, typed, where)
        if not pairs:
            return f"{empty}<{', '.join(a.text for a in typed.args)}>()"
        return f"{call}{written}({', '.join(pairs)})"

    def _not(self, value: object, typed: KotlinType, where: str, hint: str = "") -> KotlinParameterError:
        article = "an" if typed.text[:1] in "AEIOU" else "a"
        shown = f"{value!r} ({type(value).__name__})"
        return KotlinParameterError(f"{where}: {shown} is not {article} {typed.text}; {self.about}{hint}")


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
_CALL_KINDS = {call: kind for kind, calls in _CALLS.items() for call in calls}
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
    if kind in _MAPS:
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
