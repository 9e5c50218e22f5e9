"""The MCP server's session prepared ahead (issue 42): started with the server, and a spare that ``restart`` hands out.
Driven as tests/test_mcp.py drives the server (the SDK's client over stdio, the console script a real subprocess);
what the server prepared and when is read from its log on stderr, which the test follows line by line."""

from __future__ import annotations

import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import jsonschema  # noqa: F401 - the SDK's client imports it for its first tool result: not in the timed first call
import psutil
from kotlin_llm_kernel.jvm.cds import ENV_CDS
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult

from sandbox_escapes import open_directory, require_sandbox

SERVER = Path(sys.executable).parent / "kotlin-llm-mcp"
#: Seconds for a call, or for the session to be ready: a cold start on a loaded machine.
CALL_TIMEOUT = 180
PREFIX = "kotlin-llm-mcp: "
STARTING_AHEAD = PREFIX + "starting the Kotlin session before the first call"
STARTING_ON_CALL = PREFIX + "starting the Kotlin session for the first call"
SESSION_READY = re.compile(re.escape(PREFIX) + r"the session is ready \(\d+\.\d s\)")
SPARE_READY = re.compile(re.escape(PREFIX) + r"a spare session for restart\(\) is ready \(\d+\.\d s\)")
TOOK_READY_SPARE = PREFIX + "restart: took the spare session (ready)"
TOOK_STARTING_SPARE = PREFIX + "restart: took the spare session (still starting: the next call waits for it)"
TOOK_SPARE = re.compile("|".join(re.escape(line) for line in (TOOK_READY_SPARE, TOOK_STARTING_SPARE)))
STAYS = PREFIX + "restart: the session ran no snippet yet, so it stays"
ENDS = PREFIX + "the server ends"

T = TypeVar("T")


class ServerLog:
    """The server's stderr, line by line as it comes (a pipe read on a thread of its own)."""

    def __init__(self) -> None:
        read, write = os.pipe()
        self.stream = os.fdopen(write, "w")
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(os.fdopen(read),), daemon=True)
        self._reader.start()

    def _read(self, stream: Any) -> None:
        with stream:
            for line in stream:
                with self._changed:
                    self.lines.append(line.rstrip("\n"))
                    self._changed.notify_all()

    def _find(self, wanted: str | re.Pattern[str], after: int) -> int | None:
        for index in range(after, len(self.lines)):
            line = self.lines[index]
            if line == wanted if isinstance(wanted, str) else wanted.fullmatch(line):
                return index
        return None

    def wait_for(self, wanted: str | re.Pattern[str], after: int = 0, timeout: float = CALL_TIMEOUT) -> int:
        """The index of the first line from ``after`` on that is ``wanted`` (or matches it), waiting for it."""
        with self._changed:
            found = self._changed.wait_for(lambda: self._find(wanted, after) is not None, timeout)
            assert found, f"no line {wanted!r} in the server's log:\n" + "\n".join(self.lines)
            index = self._find(wanted, after)
            assert index is not None
            return index

    async def until(self, wanted: str | re.Pattern[str], after: int = 0) -> int:
        return await anyio.to_thread.run_sync(self.wait_for, wanted, after)

    def close(self) -> None:
        """Once the server ended: the rest of its log."""
        self.stream.close()
        self._reader.join(60)


@contextmanager
def server_log() -> Iterator[ServerLog]:
    log = ServerLog()
    try:
        yield log
    finally:
        log.close()


def server_process() -> psutil.Process:
    """The server this test process started (the stdio client's child)."""
    found = [p for p in psutil.Process().children() if str(SERVER) in " ".join(p.cmdline())]
    assert len(found) == 1, found
    return found[0]


def alive(processes: list[psutil.Process]) -> list[psutil.Process]:
    """Those of ``processes`` still running: a zombie has ended (its memory, a JVM's too, is freed) and only waits for
    its parent, or init once that parent ended, to read its exit status."""

    def running(process: psutil.Process) -> bool:
        try:
            return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    return [process for process in processes if running(process)]


def talk(
    steps: Callable[[ClientSession], Awaitable[T]],
    log: ServerLog,
    arguments: Sequence[str] = (),
    cwd: Path | None = None,
) -> tuple[T, list[psutil.Process]]:
    """Starts a server, runs ``steps`` against it over stdio, and ends it: what ``steps`` returned, and the server with
    the processes it started, as seen just before it was told to end."""

    async def exchange() -> tuple[T, list[psutil.Process]]:
        # The whole environment, so that the server sees the test's private cache and Jupyter directories; without
        # class-data sharing, whose archive a first JVM would build in the background (a second JVM, compiling a
        # training session, on the machine's cores while the first run is timed).
        environment = dict(os.environ) | {ENV_CDS: "0"}
        parameters = StdioServerParameters(command=str(SERVER), args=list(arguments), env=environment, cwd=cwd)
        async with stdio_client(parameters, errlog=log.stream) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            found = await steps(session)
            server = server_process()
            return found, [server, *server.children(recursive=True)]

    return anyio.run(exchange)


async def call(session: ClientSession, tool: str, **arguments: Any) -> CallToolResult:
    return await session.call_tool(tool, arguments, read_timeout_seconds=CALL_TIMEOUT)


async def timed_run(session: ClientSession, code: str) -> tuple[CallToolResult, float]:
    started = time.perf_counter()
    result = await call(session, "run", code=code)
    return result, time.perf_counter() - started


def value(result: CallToolResult, snippet: str, expected: str) -> None:
    assert result.is_error is False and result.structured_content is not None, result
    assert (result.structured_content["snippet"], result.structured_content["value"]) == (snippet, expected)


def unresolved(result: CallToolResult, name: str) -> None:
    """``result`` is snippet 1 of a fresh session, not knowing ``name``."""
    assert result.is_error is True and result.structured_content is not None
    assert result.structured_content["snippet"] == "snippet1.kts"
    assert result.structured_content["error"] == (
        f"snippet1.kts:1:1: error: Unresolved reference '{name}'.\n  | <error>{name}</error>"
    )


def test_the_session_starts_with_the_server_and_the_first_run_finds_it_ready() -> None:
    async def warm(session: ClientSession) -> tuple[CallToolResult, float]:
        await log.until(SESSION_READY)  # before any call: the server started it by itself
        return await timed_run(session, "1 + 1")

    with server_log() as log:
        (first, warm_seconds), _ = talk(warm, log)
    assert log.wait_for(STARTING_AHEAD) < log.wait_for(SESSION_READY)
    value(first, "snippet1.kts", "2")

    async def cold(session: ClientSession) -> tuple[list[str], CallToolResult, float]:
        await session.list_tools()  # a round trip: the server is up and serving
        before = list(cold_log.lines)
        result, seconds = await timed_run(session, "1 + 1")
        return before, result, seconds

    with server_log() as cold_log:
        (before_call, cold_first, cold_seconds), _ = talk(cold, cold_log, ["--no-spare"])
    value(cold_first, "snippet1.kts", "2")
    assert not [line for line in before_call if line.startswith(PREFIX)], "--no-spare started a session before a call"
    starting = cold_log.wait_for(STARTING_ON_CALL)
    cold_log.wait_for(SESSION_READY, starting)
    # Generous: warm ~0.1 s, cold (the JVM and the compiler's first snippet) ~3 s on a quiet machine.
    assert warm_seconds < cold_seconds / 2, (warm_seconds, cold_seconds)


def test_restart_hands_out_the_spare_and_a_second_restart_at_once_still_works() -> None:
    async def steps(session: ClientSession) -> dict[str, Any]:
        found: dict[str, Any] = {"declared": await call(session, "run", code="val x = 41")}
        ready = await log.until(SPARE_READY)  # prepared once the session's first call ended
        found["restart"] = await call(session, "restart")
        found["took"] = await log.until(TOOK_READY_SPARE, ready)
        found["after"], found["after_seconds"] = await timed_run(session, "x")
        found["next"] = await call(session, "run", code="val y = 2\ny")
        # the run just made prepares the next spare now: this restart takes it, most likely still starting
        found["restart_at_once"] = await call(session, "restart")
        await log.until(TOOK_SPARE, found["took"] + 1)
        found["after_at_once"] = await call(session, "run", code="y")
        found["third"] = await call(session, "restart")
        found["fourth"] = await call(session, "restart")  # the session ran no snippet: it stays
        found["stays"] = await log.until(STAYS, found["took"])
        found["last"] = await call(session, "run", code="21 * 2")
        found["vars"] = await call(session, "vars")
        return found

    with server_log() as log:
        found, _ = talk(steps, log)
    assert found["declared"].structured_content == found["declared"].structured_content | {"snippet": "snippet1.kts"}
    assert found["restart"].structured_content == {"snippets_lost": 1}
    unresolved(found["after"], "x")
    value(found["next"], "snippet2.kts", "2")
    assert found["restart_at_once"].structured_content == {"snippets_lost": 2}
    unresolved(found["after_at_once"], "y")
    assert found["third"].structured_content == {"snippets_lost": 1}
    assert found["fourth"].structured_content == {"snippets_lost": 0}
    value(found["last"], "snippet1.kts", "42")
    assert found["vars"].structured_content == {"declarations": "no declarations yet"}

    async def no_spare(session: ClientSession) -> tuple[CallToolResult, CallToolResult, float]:
        await call(session, "run", code="val x = 41")
        restarted = await call(session, "restart")
        after, seconds = await timed_run(session, "x")
        return restarted, after, seconds

    with server_log() as cold_log:
        (restarted, after, cold_seconds), _ = talk(no_spare, cold_log, ["--no-spare"])
    assert restarted.structured_content == {"snippets_lost": 1}
    unresolved(after, "x")
    assert not [line for line in cold_log.lines if SPARE_READY.fullmatch(line)]
    # Generous: with the spare ~0.05 s, a session started on the call in the warm JVM ~0.8 s.
    assert found["after_seconds"] < cold_seconds / 2, (found["after_seconds"], cold_seconds)


def test_the_server_ends_with_no_jvm_left_even_while_sessions_start() -> None:
    async def at_once(session: ClientSession) -> None:
        await log.until(STARTING_AHEAD)  # the JVM and the session are starting: the client goes

    async def with_spare_starting(session: ClientSession) -> None:
        await call(session, "run", code="val x = 1")
        await call(session, "restart")
        await call(session, "run", code="2")  # used: the next spare starts; the client goes

    for steps in (at_once, with_spare_starting):
        with server_log() as log:
            _, processes = talk(steps, log)
        assert log.lines[-1] == ENDS, log.lines  # it ended by itself, not killed by the client
        assert alive(processes) == []  # the server, the JVM in it, and whatever it started


def test_in_the_sandbox_the_session_starts_inside_with_the_server_and_restart_takes_the_spare() -> None:
    require_sandbox()
    parent = open_directory()

    async def steps(session: ClientSession) -> tuple[CallToolResult, CallToolResult, CallToolResult]:
        await log.until(SESSION_READY)  # the server inside the sandbox started it before any call
        first = await call(session, "run", code="val x = 41\nx + 1")
        await log.until(SPARE_READY)
        restarted = await call(session, "restart")
        return first, restarted, await call(session, "run", code="x")

    arguments = ["--sandbox", "--network", "none", "--workspace", str(parent / "workspace")]
    try:
        with server_log() as log:
            (first, restarted, after), processes = talk(steps, log, arguments, parent)
    finally:
        shutil.rmtree(parent, ignore_errors=True)
    assert log.wait_for(STARTING_AHEAD) < log.wait_for(SESSION_READY)
    value(first, "snippet1.kts", "42")
    assert restarted.structured_content == {"snippets_lost": 1}
    log.wait_for(TOOK_READY_SPARE)
    unresolved(after, "x")
    assert log.lines[-1] == ENDS, log.lines
    assert alive(processes) == []  # the launcher, bwrap, the server inside and its JVM
