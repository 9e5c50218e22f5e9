"""Python values (papermill's parameters: what JSON and YAML give) as Kotlin source: literals with their static types,
and names. Strings are written by ``session/kotlin_strings.py``, as the MCP server's are. Literals of the types a
parameters cell declares are :mod:`.kotlin_types`'s, the cell itself :mod:`.parameters_cell`'s. Pure, so without
papermill."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

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

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
FLOAT_MAX = 3.4028234663852886e38
_NULL = "Nothing?"
# The types a parameters cell can give a parameter that the translator writes literals of: scalars, and collections
# with the call that builds one with items and the one without.
SCALARS = frozenset({"Int", "Long", "Double", "Float", "String", "Boolean"})
CALLS = {
    "List": ("listOf", "emptyList"),
    "MutableList": ("mutableListOf", "mutableListOf"),
    "Set": ("setOf", "emptySet"),
    "MutableSet": ("mutableSetOf", "mutableSetOf"),
    "Map": ("mapOf", "emptyMap"),
    "MutableMap": ("mutableMapOf", "mutableMapOf"),
}
MAPS = frozenset({"Map", "MutableMap"})


class KotlinParameterError(ValueError):
    """A parameter that has no Kotlin declaration; the message names the parameter and where in its value."""


@dataclass(frozen=True)
class Literal:
    """Kotlin source for a value, and the static type the compiler infers for it (``Nothing?`` for ``null``)."""

    code: str
    type: str


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
        return double_literal(value)
    if isinstance(value, str):
        return Literal(kotlin_string(value), "String")
    if isinstance(value, (list, tuple)):
        return list_literal(value, where)
    if isinstance(value, dict):
        return map_literal(value, where)
    raise KotlinParameterError(
        f"{where or 'the value'}: {type(value).__name__} has no Kotlin literal "
        "(give a str, int, float, bool, None, list or dict)"
    )


def _integer(value: int) -> Literal:
    if value == LONG_MIN:
        return Literal("Long.MIN_VALUE", "Long")  # its literal is out of range: the minus is applied to 2^63
    if LONG_MIN < value <= LONG_MAX:
        return Literal(f"{value}L", "Long")
    return Literal(f'java.math.BigInteger("{value}")', "java.math.BigInteger")


def double_literal(value: float) -> Literal:
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


def list_literal(items: list[object] | tuple[object, ...], where: str, kind: str = "List") -> Literal:
    call, empty = CALLS[kind]
    if not items:
        return Literal(f"{empty}<Any?>()", f"{kind}<Any?>")
    literals = [kotlin_literal(item, f"{where}[{index}]") for index, item in enumerate(items)]
    item_type, written = _common_type([literal.type for literal in literals])
    call = f"{call}<{item_type}>" if written else call
    return Literal(f"{call}({', '.join(literal.code for literal in literals)})", f"{kind}<{item_type}>")


def map_literal(entries: dict[object, object], where: str, kind: str = "Map") -> Literal:
    call, empty = CALLS[kind]
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
