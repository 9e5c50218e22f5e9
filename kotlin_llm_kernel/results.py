"""The outcome of a snippet, as plain Python objects (no JVM needed to use them)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

Phase = Literal["COMPILATION", "EVALUATION"]

COMPILATION_ERROR = "CompilationError"

_HEADLINE = re.compile(r"^(?P<name>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?::\s?(?P<message>.*))?$")


@dataclass(frozen=True)
class Value:
    """A snippet that compiled and ran to its end, like the engine's ``ScriptResult.Value``.

    ``value`` is the value of the last expression converted to Python where that is lossless (strings, numbers,
    booleans, ``None`` for null), else the Java object itself; ``text`` is its Kotlin ``toString()``;
    ``is_unit`` tells a snippet without a value.
    """

    value: Any
    text: str
    is_unit: bool = False
    warnings: tuple[str, ...] = ()
    resolved_versions: dict[str, str] = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return True

    def __str__(self) -> str:
        return "" if self.is_unit else self.text


@dataclass(frozen=True)
class Error:
    """A snippet that failed to compile or threw, like the engine's ``ScriptResult.Error``.

    ``message`` is the engine's report, written for an LLM to act on; ``ename``/``evalue`` are the Jupyter names:
    ``CompilationError`` and the first line for the COMPILATION phase, else the exception's class and message.
    """

    phase: Phase
    message: str
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return False

    @property
    def ename(self) -> str:
        return error_name(self.phase, self.message)

    @property
    def evalue(self) -> str:
        return error_value(self.phase, self.message)

    @property
    def traceback(self) -> list[str]:
        return self.message.split("\n")

    def __str__(self) -> str:
        return self.message


Outcome = Value | Error


def _headline(message: str) -> str:
    return message.split("\n", 1)[0]


def error_name(phase: Phase, message: str) -> str:
    """``CompilationError``, or the exception class of an EVALUATION report's first line."""
    if phase == "COMPILATION":
        return COMPILATION_ERROR
    match = _HEADLINE.match(_headline(message))
    return match.group("name") if match else "RuntimeError"


def error_value(phase: Phase, message: str) -> str:
    """The first line of a COMPILATION report; the exception message of an EVALUATION report's first line."""
    headline = _headline(message)
    if phase == "COMPILATION":
        return headline
    match = _HEADLINE.match(headline)
    if not match:
        return headline
    return match.group("message") or ""
