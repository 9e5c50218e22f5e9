"""A snippet's outcome (the Python API's :class:`.Value` or :class:`.Error`) as a tool result: the structured content
an agent reads, with the long texts bounded, and the same as text (a summary line, then the texts and the report)
for clients that show the model only the text content."""

from __future__ import annotations

from typing import Any, Literal

from mcp_types import CallToolResult, ImageContent, TextContent
from pydantic import BaseModel, Field

from ..session.results import Display, Error, Value
from .bounded import TEXT_LIMIT, bound

#: Characters of the value or error summary line.
SUMMARY_LIMIT = 200
#: The image types MCP clients show to a model, in the order a bundle's is taken (an SVG stays text in the bundle).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


class RunResult(BaseModel):
    """The structured content of ``run`` and ``add_dependency`` (its JSON schema is the tools' output schema)."""

    status: Literal["ok", "error"]
    snippet: str = Field(description="The snippet's file name, e.g. snippet3.kts: the name the reports use")
    value: str | None = Field(description="The value's text (Kotlin toString); null for Unit and for an error")
    stdout: str
    stderr: str
    error: str | None = Field(description="The engine's report, exactly as the kernel renders it; null when ok")
    ename: str | None = Field(description="CompilationError, or the exception's class; null when ok")
    phase: Literal["COMPILATION", "EVALUATION"] | None
    warnings: list[str]
    diagnostics: list[dict[str, Any]] = Field(description="Errors or warnings as data: name, message, place, hints")
    resolved_versions: dict[str, str] = Field(description="Versions chosen for version-less dependencies")
    truncated: bool = Field(description="A text was cut at the server's limit; full_text_files has the whole of it")
    full_text_files: dict[str, str] = Field(description="Field name (value, stdout, stderr) -> file with its full text")


class CheckResult(BaseModel):
    """The structured content of ``check``."""

    status: Literal["ok", "error"] = Field(description="error: the code does not compile")
    snippet: str = Field(description="The file name the code was checked as: the next run's (it is not used up)")
    error: str | None = Field(description="The compiler's report, as run would give it; null when it compiles")
    warnings: list[str]
    diagnostics: list[dict[str, Any]] = Field(description="Errors or warnings as data: name, message, place, hints")


def check_result(outcome: Value | Error, snippet_number: int) -> CallToolResult:
    """The tool result of a check: the report itself as text, as the agent asked for nothing else. Not ``is_error``:
    the check worked, and its ``status`` says whether the code compiles."""
    snippet = f"snippet{snippet_number}.kts"
    diagnostics = [diagnostic.as_json() for diagnostic in outcome.diagnostics]
    if isinstance(outcome, Value):
        result = CheckResult(
            status="ok", snippet=snippet, error=None, warnings=list(outcome.warnings), diagnostics=diagnostics
        )
        text = "\n\n".join([f"{snippet}: compiles", *outcome.warnings])
    else:
        result = CheckResult(
            status="error", snippet=snippet, error=outcome.message, warnings=[], diagnostics=diagnostics
        )
        text = outcome.message
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=result.model_dump(mode="json")
    )


def run_result(outcome: Value | Error, snippet_number: int, text_limit: int = TEXT_LIMIT) -> CallToolResult:
    """The tool result of one snippet, its texts cut at ``text_limit`` characters: ``is_error`` for an
    :class:`Error`."""
    snippet = f"snippet{snippet_number}.kts"
    texts = {"stdout": outcome.stdout, "stderr": outcome.stderr}
    if isinstance(outcome, Value) and not outcome.is_unit:
        texts["value"] = outcome.text
    bounded = {name: bound(text, name, text_limit) for name, text in texts.items()}
    files = {name: b.full_text_file for name, b in bounded.items() if b.full_text_file is not None}
    common: dict[str, Any] = {
        "snippet": snippet,
        "value": bounded["value"].text if "value" in bounded else None,
        "stdout": bounded["stdout"].text,
        "stderr": bounded["stderr"].text,
        "diagnostics": [diagnostic.as_json() for diagnostic in outcome.diagnostics],
        "truncated": bool(files),
        "full_text_files": files,
    }
    if isinstance(outcome, Value):
        result = RunResult(
            status="ok",
            error=None,
            ename=None,
            phase=None,
            warnings=list(outcome.warnings),
            resolved_versions=outcome.resolved_versions,
            **common,
        )
        shown = "Unit" if outcome.is_unit else _one_line(outcome.text)
        summary = f"{snippet}: ok: {shown}"
    else:
        result = RunResult(
            status="error",
            error=outcome.message,
            ename=outcome.ename,
            phase=outcome.phase,
            warnings=[],
            resolved_versions={},
            **common,
        )
        summary = f"{snippet}: {outcome.ename}"
    if files:
        summary += f" (cut; the full texts are in {', '.join(files.values())})"
    images = _images(outcome)
    if images:
        summary += f" ({len(images)} image{'s' if len(images) > 1 else ''}: {', '.join(i.mime_type for i in images)})"
    # What a client that shows the model only the text content must still carry: the whole (bounded) result
    parts = [summary]
    if isinstance(outcome, Value) and not outcome.is_unit and _one_line(outcome.text) != outcome.text:
        parts.append(f"value:\n{bounded['value'].text}")
    parts += [f"{name}:\n{bounded[name].text}" for name in ("stdout", "stderr") if bounded[name].text]
    parts += [outcome.message] if isinstance(outcome, Error) else outcome.warnings
    return CallToolResult(
        content=[TextContent(type="text", text="\n\n".join(parts)), *images],
        structured_content=result.model_dump(mode="json"),
        is_error=isinstance(outcome, Error),
    )


def _images(outcome: Value | Error) -> list[ImageContent]:
    """The images the snippet displayed and its value's, in order, as MCP image content (never base64 in text)."""
    bundles = [display.data for display in outcome.displays if isinstance(display, Display)]
    if isinstance(outcome, Value):
        bundles.append(outcome.data)
    images = []
    for bundle in bundles:
        mime = next((mime for mime in IMAGE_TYPES if mime in bundle), None)
        if mime is not None:
            images.append(ImageContent(type="image", data="".join(str(bundle[mime]).split()), mime_type=mime))
    return images


def _one_line(text: str) -> str:
    line = text.split("\n", 1)[0]
    return line if len(line) <= SUMMARY_LIMIT and "\n" not in text else line[:SUMMARY_LIMIT] + "…"
