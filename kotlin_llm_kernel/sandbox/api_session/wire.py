"""The outcomes of a session as JSON lines, between a sandboxed session's child (:mod:`.child`) and the Python
API's side of it (:mod:`.client`): the results' dataclasses by name, their tuples restored; a value that is
a Java object crosses as its text."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from ...session.bridge import Completion, CompletionItem
from ...session.results import ClearOutput, Diagnostic, Display, Error, ResolvedDependency, Value

TYPES: dict[str, type] = {
    kind.__name__: kind
    for kind in (Value, Error, Display, ClearOutput, Diagnostic, ResolvedDependency, Completion, CompletionItem)
}
TYPE_KEY = "__type__"


def encode(thing: Any) -> Any:
    """``thing`` as JSON-ready data."""
    if dataclasses.is_dataclass(thing) and not isinstance(thing, type):
        fields = {field.name: encode(getattr(thing, field.name)) for field in dataclasses.fields(thing)}
        return {TYPE_KEY: type(thing).__name__, **fields}
    if isinstance(thing, (list, tuple)):
        return [encode(item) for item in thing]
    if isinstance(thing, dict):
        return {str(key): encode(value) for key, value in thing.items()}
    if thing is None or isinstance(thing, (str, int, float, bool)):
        return thing
    return str(thing)  # a Java object: its toString(), the result's text


def decode(data: Any) -> Any:
    """What :func:`encode` made, back as the dataclasses (their tuple fields as tuples)."""
    if isinstance(data, dict) and data.get(TYPE_KEY) in TYPES:
        kind = TYPES[data[TYPE_KEY]]
        values = {}
        for field in dataclasses.fields(kind):
            if field.name in data:
                value = decode(data[field.name])
                is_tuple = isinstance(field.type, str) and field.type.startswith("tuple")
                values[field.name] = tuple(value) if is_tuple and isinstance(value, list) else value
        return kind(**values)
    if isinstance(data, list):
        return [decode(item) for item in data]
    if isinstance(data, dict):
        return {key: decode(value) for key, value in data.items()}
    return data


def line(message: dict[str, Any]) -> str:
    return json.dumps(encode(message), ensure_ascii=False) + "\n"


def read(text: str) -> dict[str, Any]:
    message = decode(json.loads(text))
    assert isinstance(message, dict)
    return message
