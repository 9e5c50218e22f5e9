"""The types a parameters cell declares (``Int``, ``List<Long>``, ``Map<String, Double>?``…), read from their source,
and literals of Python values in them: ``5`` for an ``Int``, ``5.0`` for a ``Double``, ``listOf(1, 2)`` for a
``List<Int>``, or an error naming what the cell declares. Pure, so without papermill."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..session.kotlin_strings import kotlin_string
from .kotlin_literals import (
    CALLS,
    FLOAT_MAX,
    INT_MAX,
    INT_MIN,
    LONG_MAX,
    LONG_MIN,
    MAPS,
    SCALARS,
    KotlinParameterError,
    Literal,
    double_literal,
    kotlin_literal,
    list_literal,
    map_literal,
)


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
        return self.name in SCALARS or self.name in CALLS

    @property
    def inferred(self) -> bool:
        """Whether a literal of this type without type arguments has exactly this type."""
        if self.nullable or not self.readable:
            return False
        return self.name in SCALARS or (len(self.args) > 0 and all(arg.inferred for arg in self.args))


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
    if args and (name in SCALARS or (name in CALLS and len(args) != (2 if name in MAPS else 1))):
        return None
    text = written + (f"<{', '.join(arg.text for arg in args)}>" if args else "") + ("?" if nullable else "")
    return KotlinType(name, tuple(args), nullable, text), index


@dataclass(frozen=True)
class TypedLiterals:
    """Literals of declared types; ``about`` (what the parameters cell declares) ends each error."""

    about: str

    def literal(self, value: object, typed: KotlinType, where: str) -> Literal:
        if not typed.readable:
            return kotlin_literal(value, where)
        if value is None and typed.nullable:
            return Literal("null", typed.text)
        if typed.name in CALLS:
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
            low, high = (INT_MIN, INT_MAX) if name == "Int" else (LONG_MIN, LONG_MAX)
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
            return double_literal(number).code
        if math.isnan(number):
            return "Float.NaN"
        if math.isinf(number):
            return "Float.POSITIVE_INFINITY" if number > 0 else "Float.NEGATIVE_INFINITY"
        if abs(number) > FLOAT_MAX:
            raise KotlinParameterError(f"{where}: {value} does not fit in Float; {self.about}")
        return f"{number!r}f"

    def _collection(self, value: object, typed: KotlinType, where: str) -> str:
        call, empty = CALLS[typed.name]
        written = "" if all(arg.inferred for arg in typed.args) else f"<{', '.join(a.text for a in typed.args)}>"
        if typed.name in MAPS and isinstance(value, dict):
            if not typed.args:
                return map_literal(value, where, typed.name).code
            key_type, value_type = typed.args
            pairs = [
                f"{self.literal(key, key_type, f'{where} (a key)').code} to "
                f"{self.literal(item, value_type, f'{where}[{key!r}]').code}"
                for key, item in value.items()
            ]
        elif typed.name not in MAPS and isinstance(value, (list, tuple)):
            if not typed.args:
                return list_literal(value, where, typed.name).code
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
