"""The MCP server driven as an agent's client drives it (tests/test_mcp.py, tests/test_sandbox_mcp.py): the SDK's own
client over stdio, the server a real subprocess (the console script, or the command a test names)."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult

SERVER = Path(sys.executable).parent / "kotlin-llm-mcp"
#: Seconds for a call, the first starting the JVM and the compiler.
CALL_TIMEOUT = 180

T = TypeVar("T")


def talk(
    steps: Callable[[ClientSession], Awaitable[T]],
    arguments: Sequence[str] = (),
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] = (str(SERVER),),
) -> T:
    """Starts a server, ``command`` with ``arguments``, in ``cwd`` with ``env`` (by default this process's whole
    environment, so that the server sees the test's private cache and Jupyter directories), runs ``steps`` against it
    over stdio and returns what they return; the server then ends."""

    async def exchange() -> T:
        parameters = StdioServerParameters(
            command=command[0], args=[*command[1:], *arguments], env=dict(env or os.environ), cwd=cwd
        )
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await steps(session)

    return anyio.run(exchange)


async def call(session: ClientSession, tool: str, **arguments: Any) -> CallToolResult:
    return await session.call_tool(tool, arguments, read_timeout_seconds=CALL_TIMEOUT)


async def run(session: ClientSession, code: str) -> CallToolResult:
    return await call(session, "run", code=code)
