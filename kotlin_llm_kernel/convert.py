"""Conversions between Python values and Java objects at the JPype boundary.

Provided properties are typed by their value's class on the JVM side, so the Java class chosen here is the type a
snippet sees: ``str`` → ``String``, ``bool`` → ``Boolean``, ``int`` → ``Long``, ``float`` → ``Double``, ``list`` →
``List``, ``dict`` → ``Map`` (string keys), ``None`` → ``null``. Any Java object passes through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import jpype


def to_java(value: Any) -> Any:
    """The Java object for a JSON-like Python value (see the module docstring)."""
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
        return jpype.JString(value)
    if isinstance(value, Mapping):
        result = jpype.JClass("java.util.LinkedHashMap")()
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"map keys must be strings, not {type(key).__name__} ({key!r})")
            result.put(jpype.JString(key), to_java(item))
        return result
    if isinstance(value, Sequence):
        result = jpype.JClass("java.util.ArrayList")()
        for item in value:
            result.add(to_java(item))
        return result
    raise TypeError(f"cannot provide a {type(value).__name__} to Kotlin; use str, int, float, bool, list, dict or None")


def properties_to_java(properties: Mapping[str, Any]) -> Any:
    """A ``java.util.Map<String, Object>`` keeping the order of ``properties``."""
    result = jpype.JClass("java.util.LinkedHashMap")()
    for name, value in properties.items():
        result.put(jpype.JString(name), to_java(value))
    return result


_BOXED = {
    "java.lang.String": str,
    "java.lang.Character": str,
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


def java_str(value: Any) -> str:
    """The Kotlin ``toString()`` of a value (``null`` for null), computed by the JVM: JPype hands boxed values
    back as Python-like objects whose ``str()`` differs (``False`` for ``false``, ``1e+20`` for ``1.0E20``)."""
    if value is None:
        return "null"
    boxed = jpype.JObject(value, jpype.JClass("java.lang.Object"))
    return str(jpype.JClass("java.lang.String").valueOf(boxed))
