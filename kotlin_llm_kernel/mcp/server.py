"""The MCP server and its tools, each a thin layer over one Kotlin session (:mod:`.kotlin_session`)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from .. import __version__
from ..config.time_limit import checked_limit
from ..session.kotlin_strings import kotlin_string
from ..session.results import Value
from .bounded import TEXT_LIMIT
from .kotlin_session import KotlinSession
from .progress import LastLine, while_running
from .results import CheckResult, RunResult, check_result, run_result

INSTRUCTIONS = (
    "A stateful Kotlin (JVM) session: each run sees the declarations of the runs before it. Errors are reports written "
    "for you to act on, with the fix as a hint: line where one applies."
)


class VarsResult(BaseModel):
    """The structured content of ``vars``."""

    declarations: str


class CompletionItem(BaseModel):
    text: str
    kind: str = Field(description="function, property, class, …")
    signature: str


class CompleteResult(BaseModel):
    """The structured content of ``complete``."""

    matches: list[str]
    start: int = Field(description="Each match replaces code[start:end] (offsets as the cursor's)")
    end: int
    items: list[CompletionItem]


class InspectResult(BaseModel):
    """The structured content of ``inspect``."""

    found: bool
    text: str | None = Field(description="The declaration, its type and a property's current value; null if none")


class InterruptResult(BaseModel):
    """The structured content of ``interrupt``."""

    interrupted: bool = Field(description="Whether a run was going on (it then returns its interrupted error)")


class RestartResult(BaseModel):
    """The structured content of ``restart``."""

    snippets_lost: int


def build_server(session: KotlinSession | None = None, text_limit: int = TEXT_LIMIT) -> MCPServer:
    """The server over ``session``; each text (value, stdout, stderr) of a result is cut at ``text_limit``."""
    kotlin = session or KotlinSession()
    server: MCPServer = MCPServer("kotlin-llm", version=__version__, instructions=INSTRUCTIONS)

    @server.tool()
    async def run(
        code: str,
        ctx: Context,
        timeout: Annotated[
            float | None, Field(description="Seconds the run may take before it is interrupted; default: none")
        ] = None,
    ) -> Annotated[CallToolResult, RunResult]:
        """Runs Kotlin code as the next cell of the session and returns its value, what it printed and, on failure,
        the compiler's or the exception's report (isError true). The value of the last expression is the cell's
        value; @file:DependsOn("group:artifact:version") lines add libraries; vars() lists the declarations. A long
        run sends progress (its time and last printed line); cancelling the request interrupts it, as interrupt()
        does."""
        limit = None if timeout is None else checked_limit(timeout, "timeout")
        printed = LastLine()
        ran = await while_running(
            ctx,
            lambda withdrawn: kotlin.execute_unless(withdrawn, code, limit, printed.printed),
            kotlin.interrupt,
            printed,
        )
        if ran is None:  # withdrawn by a cancellation before its turn: the client reads no result
            return CallToolResult(content=[TextContent(type="text", text="Cancelled before it ran.")], is_error=True)
        outcome, number = ran
        return run_result(outcome, number, text_limit)

    @server.tool()
    def check(code: str) -> Annotated[CallToolResult, CheckResult]:
        """Compiles Kotlin code as the next run would compile it, against the session's declarations and libraries,
        and returns the compiler's errors and warnings, without running anything or changing the session (nothing is
        declared, and the next run keeps its snippet number)."""
        outcome, number = kotlin.check(code)
        return check_result(outcome, number)

    @server.tool(name="vars")
    def declarations() -> Annotated[CallToolResult, VarsResult]:
        """The session's declarations visible now, with their types and the current values of properties."""
        # The engine's own vars(), run as a cell (its text is what the kernel shows), by its full name as a session
        # may declare a vars of its own.
        outcome, number = kotlin.execute("org.kotlinllm.script.runtime.vars()")
        if not isinstance(outcome, Value):
            return run_result(outcome, number, text_limit)
        text = "" if outcome.is_unit else outcome.text
        return CallToolResult(
            content=[TextContent(type="text", text=text or "(no declarations)")],
            structured_content=VarsResult(declarations=text).model_dump(mode="json"),
        )

    @server.tool()
    def add_dependency(coordinates: str, repository: str | None = None) -> Annotated[CallToolResult, RunResult]:
        """Adds a Maven library ("group:artifact:version", or without the version for the latest stable) so that
        its classes are importable from the next run; repository: a Maven repository URL besides Maven Central.
        Returns the resolved versions and the warnings (version conflicts), or the resolution error."""
        lines = [f"@file:Repository({kotlin_string(repository)})"] if repository else []
        lines.append(f"@file:DependsOn({kotlin_string(coordinates)})")
        outcome, number = kotlin.execute("\n".join(lines))
        return run_result(outcome, number, text_limit)

    @server.tool()
    def complete(code: str, cursor: int) -> Annotated[CallToolResult, CompleteResult]:
        """Completions at cursor (a character offset into code), typed by the Kotlin compiler against the session's
        declarations. Nothing runs."""
        found = kotlin.complete(code, cursor)
        items = [CompletionItem(text=i.text, kind=i.type, signature=i.signature) for i in found.items]
        result = CompleteResult(matches=found.matches, start=found.start, end=found.end, items=items)
        listed = "\n".join(i.signature or i.text for i in items) or "\n".join(found.matches) or "(no completions)"
        return CallToolResult(
            content=[TextContent(type="text", text=listed)], structured_content=result.model_dump(mode="json")
        )

    @server.tool()
    def inspect(code: str, cursor: int) -> Annotated[CallToolResult, InspectResult]:
        """The declaration of the name at cursor (a character offset into code) with its resolved type and, for a
        property, its current value. Nothing runs."""
        text = kotlin.inspect(code, cursor)
        return CallToolResult(
            content=[TextContent(type="text", text=text or "(nothing to inspect there)")],
            structured_content=InspectResult(found=text is not None, text=text).model_dump(mode="json"),
        )

    @server.tool()
    def interrupt() -> Annotated[CallToolResult, InterruptResult]:
        """Interrupts the run going on, if any (its run call then returns the interrupted error); the session keeps
        its declarations."""
        interrupted = kotlin.interrupt()
        said = "Interrupted the running snippet." if interrupted else "Nothing was running."
        return CallToolResult(
            content=[TextContent(type="text", text=said)],
            structured_content=InterruptResult(interrupted=interrupted).model_dump(mode="json"),
        )

    @server.tool()
    def restart() -> Annotated[CallToolResult, RestartResult]:
        """Closes the Kotlin session and gives a fresh one (prepared in the background, so usually at once; the
        next call waits for it if not): every declaration and library added is lost, the next run is snippet 1."""
        lost = kotlin.restart()
        return CallToolResult(
            content=[TextContent(type="text", text=f"Restarted: the {lost} snippets of the old session are lost.")],
            structured_content=RestartResult(snippets_lost=lost).model_dump(mode="json"),
        )

    return server
