"""Traits shared by the kernel's settings."""

from __future__ import annotations

import json
from typing import Any

from traitlets import Dict, TraitError


def parse_json_or_text(text: str) -> Any:
    """A JSON value, or the text itself when it is not JSON (so ``greeting=Hello`` needs no quotes)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


class JsonDict(Dict):
    """A dict of JSON values, settable on the command line as a JSON object or as ``name=value`` items.

    ``--KotlinKernel.properties='{"answer": 42}'`` and ``--KotlinKernel.properties answer=42`` are the same; a value
    that is not JSON is taken as a string (``greeting=Hello``).
    """

    def from_string_list(self, s_list: list[str]) -> Any:
        if len(s_list) == 1 and s_list[0].lstrip().startswith("{"):
            value = json.loads(s_list[0])
            if not isinstance(value, dict):
                raise TraitError(f"{self.name} must be a JSON object, got {s_list[0]!r}")
            return value
        combined: dict[str, Any] = {}
        for item in s_list:
            if "=" not in item:
                raise TraitError(f"{self.name} items must look like name=value, got {item!r}")
            name, text = item.split("=", 1)
            combined[name.strip()] = parse_json_or_text(text)
        return combined

    def from_string(self, s: str) -> Any:
        return self.from_string_list([s])
