"""The outcome of a snippet, as plain Python objects (no JVM needed to use them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

#: Where a snippet failed: the engine's ``ExecutionPhase`` (tests/unit/test_wire.py holds the two alike).
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


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of a snippet as data (the engine's ``HostDiagnostic``): where it is, what it says and what would
    fix it, so that a program can act on it without reading the report."""

    severity: Literal["error", "warning"]
    #: The compiler's name (``UNRESOLVED_REFERENCE``); None for the engine's own (``%use``, dependencies).
    name: str | None
    message: str
    #: (line, column), 1-based; columns count UTF-16 code units and the end is exclusive. None without a location.
    start: tuple[int, int] | None
    end: tuple[int, int] | None
    #: Imports that would make a name resolve, best first.
    imports: tuple[str, ...] = ()
    #: The names most likely meant by a misspelt one, best first.
    names: tuple[str, ...] = ()
    #: A ``@file:DependsOn`` coordinate that would bring a missing library.
    dependency: str | None = None
    #: The report's ``hint:`` line for it, without ``hint: ``.
    hint: str | None = None
    #: How many errors that follow from this one the report leaves out.
    followers: int = 0

    def as_json(self) -> dict[str, Any]:
        """The form of the ``execute_reply`` metadata (``kotlin_llm.diagnostics``)."""

        def position(at: tuple[int, int] | None) -> dict[str, int] | None:
            return None if at is None else {"line": at[0], "column": at[1]}

        return {
            "severity": self.severity,
            "name": self.name,
            "message": self.message,
            "start": position(self.start),
            "end": position(self.end),
            "hints": {"imports": list(self.imports), "names": list(self.names), "dependency": self.dependency},
            "hint": self.hint,
            "follow_on_errors": self.followers,
        }


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
    #: Its warnings as data, in the order of ``warnings``.
    diagnostics: tuple[Diagnostic, ...] = ()
    #: The snippet's number, ``N`` of ``snippetN.kts`` (a check's: the number it was checked as).
    snippet_number: int = 0

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
    #: A failed compilation's errors and notes as data, in the report's order (empty for an exception).
    diagnostics: tuple[Diagnostic, ...] = ()
    #: The snippet's number, ``N`` of ``snippetN.kts``; 0 for a snippet that was not submitted (``SessionBusy``).
    snippet_number: int = 0

    @property
    def ok(self) -> bool:
        return False

    @property
    def traceback(self) -> list[str]:
        return self.message.split("\n")

    def __str__(self) -> str:
        return self.message


Outcome = Value | Error
