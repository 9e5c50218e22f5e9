"""The outcome of a snippet, as plain Python objects (no JVM needed to use them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Phase = Literal["COMPILATION", "EVALUATION"]


@dataclass(frozen=True)
class ResolvedDependency:
    """A version-less ``@file:DependsOn`` dependency and the version the engine chose for it."""

    coordinates: str
    version: str
    #: The engine's own verdict: no stable version existed, so the latest pre-release was taken.
    pre_release: bool = False

    def describe(self) -> str:
        kind = "pre-release" if self.pre_release else "stable"
        return f"Resolved '{self.coordinates}' to its latest {kind} version '{self.version}'"


# --- rich output: displays of a snippet ---


@dataclass(frozen=True)
class Display:
    """A rich output a snippet sent (``DISPLAY``, ``UPDATE_DISPLAY``): MIME type → content (``application/json`` as
    a dict or list, images as base64 text), its metadata, and its display id when it has one."""

    data: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)
    display_id: str | None = None
    update: bool = False

    @property
    def text(self) -> str:
        return str(self.data.get("text/plain", ""))


@dataclass(frozen=True)
class ClearOutput:
    """The snippet cleared its output (``clearOutput(wait)``)."""

    wait: bool = False


SnippetDisplay = Display | ClearOutput


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
    resolved: tuple[ResolvedDependency, ...] = ()
    stdout: str = ""
    stderr: str = ""
    #: The value's MIME bundle (``text/plain`` is ``text``; empty for Unit) and its metadata.
    data: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    #: What the snippet displayed, in order.
    displays: tuple[SnippetDisplay, ...] = ()

    @property
    def ok(self) -> bool:
        return True

    @property
    def resolved_versions(self) -> dict[str, str]:
        """The versions chosen for the version-less dependencies, by coordinates (the spec's resolvedVersions)."""
        return {dependency.coordinates: dependency.version for dependency in self.resolved}

    def __str__(self) -> str:
        return "" if self.is_unit else self.text


@dataclass(frozen=True)
class Error:
    """A snippet that failed to compile or threw, like the engine's ``ScriptResult.Error``.

    ``message`` is the engine's report, written for an LLM to act on; ``ename``/``evalue`` are the Jupyter names
    the engine gives it: ``CompilationError`` and the report's first line for the COMPILATION phase, else the
    exception's class and message.
    """

    phase: Phase
    message: str
    ename: str
    evalue: str
    stdout: str = ""
    stderr: str = ""
    #: What the snippet displayed before it failed, in order.
    displays: tuple[SnippetDisplay, ...] = ()
    #: The snippet was cancelled while it compiled and never ran (the engine's ``HostOutcome.notRun``): its session
    #: is as before it. A fact to decide on; ``evalue`` says it in words.
    not_run: bool = False

    @property
    def ok(self) -> bool:
        return False

    @property
    def traceback(self) -> list[str]:
        return self.message.split("\n")

    def __str__(self) -> str:
        return self.message


Outcome = Value | Error
