"""The MCP server's session prepared ahead (issue 42): the first ``run`` after the server's start and after
``restart()``, with the spare (the default) and with ``--no-spare``, in fresh servers driven by the MCP SDK's client
over stdio (see bench/README.md).

``python bench/mcp_warm.py [--runs 5]``

Each round starts, for each mode in turn, two servers:

- **call at once**: ``1 + 1`` sent right after ``initialize``: from the server's spawn to the result (what a client
  that calls first thing waits; with the spare, the session's start overlaps the server's own start and handshake).
- **agent's pace**: ``1 + 1`` sent after the server idled: with the spare, 1 s after its log says the session is ready;
  with ``--no-spare``, 1 s after ``initialize``. Timed from the call to its result. Then ``val x = 1``, an idle (with
  the spare: until the spare is ready, then 1 s; else 1 s), the server's RSS (psutil, whole process: Python and the
  JVM), ``restart()``, 1 s, and ``x``: its time from the call to its (unresolved-reference) result, snippet 1 of the
  fresh session, plus the restart call's own time.

The report gives medians [min–max] per mode and the ratios spare / no spare.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import anyio
import anyio.to_thread
import jsonschema  # noqa: F401 - the SDK's client imports it for its first tool result: not in a timed call
import psutil
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult

import environment
from environment import REPO
from measure import median

SERVER = Path(sys.executable).parent / "kotlin-llm-mcp"
TIMEOUT = 300.0
IDLE = 1.0
SESSION_READY = re.compile(r"kotlin-llm-mcp: the session is ready \(")
SPARE_READY = re.compile(r"kotlin-llm-mcp: a spare session for restart\(\) is ready \(")
MODES = {"spare": [], "no spare": ["--no-spare"]}


class Log:
    """The server's stderr in a file, read for a line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stream = path.open("w")

    def _has(self, wanted: re.Pattern[str]) -> bool:
        return any(wanted.match(line) for line in self.path.read_text().splitlines())

    async def until(self, wanted: re.Pattern[str]) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not self._has(wanted):
            if time.monotonic() > deadline:
                raise RuntimeError(f"no {wanted.pattern} in {self.path}")
            await anyio.sleep(0.05)


async def _call(session: ClientSession, tool: str, **arguments: str) -> tuple[CallToolResult, float]:
    started = time.perf_counter()
    result = await session.call_tool(tool, arguments, read_timeout_seconds=TIMEOUT)
    return result, time.perf_counter() - started


def _expect(result: CallToolResult, snippet: str, ok: bool) -> None:
    content = result.structured_content or {}
    if content.get("snippet") != snippet or (content.get("status") == "ok") != ok:
        raise RuntimeError(f"unexpected result: {result}")


def _server_rss() -> float:
    """MB of the one server this process runs."""
    (server,) = [p for p in psutil.Process().children() if str(SERVER) in " ".join(p.cmdline())]
    return float(server.memory_info().rss) / 2**20


async def _one_server(arguments: list[str], log: Log, at_once: bool) -> dict[str, float]:
    found: dict[str, float] = {}
    spare = "--no-spare" not in arguments
    parameters = StdioServerParameters(command=str(SERVER), args=arguments, env=dict(os.environ))
    spawned = time.perf_counter()
    async with stdio_client(parameters, errlog=log.stream) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        if at_once:
            result, _ = await _call(session, "run", code="1 + 1")
            _expect(result, "snippet1.kts", True)
            found["start_at_once"] = time.perf_counter() - spawned
            return found
        if spare:
            await log.until(SESSION_READY)
        await anyio.sleep(IDLE)
        result, found["start_paced"] = await _call(session, "run", code="1 + 1")
        _expect(result, "snippet1.kts", True)
        result, _ = await _call(session, "run", code="val x = 1")
        _expect(result, "snippet2.kts", True)
        if spare:
            await log.until(SPARE_READY)
        await anyio.sleep(IDLE)
        found["rss"] = _server_rss()
        _, found["restart_call"] = await _call(session, "restart")
        await anyio.sleep(IDLE)
        result, found["after_restart"] = await _call(session, "run", code="x")
        _expect(result, "snippet1.kts", False)
    return found


def _measure(runs: int, scratch: Path) -> dict[str, dict[str, list[float]]]:
    taken: dict[str, dict[str, list[float]]] = {mode: {} for mode in MODES}
    for round_ in range(runs):
        for mode, arguments in MODES.items():
            for at_once in (True, False):
                log = Log(scratch / f"{round_}-{mode.replace(' ', '-')}-{at_once}.log")
                try:
                    found = anyio.run(_one_server, arguments, log, at_once)
                finally:
                    log.stream.close()
                for key, seconds in found.items():
                    taken[mode].setdefault(key, []).append(seconds)
    return taken


ROWS = {
    "start_at_once": ("spawn → first `1 + 1` result, called right after `initialize` (s)", 1.0),
    "start_paced": ("first `1 + 1` after start, called 1 s after ready / `initialize` (ms)", 1000.0),
    "restart_call": ("`restart()` call (ms)", 1000.0),
    "after_restart": ("first run after `restart()`, called 1 s after it (ms)", 1000.0),
    "rss": ("server RSS before `restart()`, idle (MB)", 1.0),
}


def _cell(values: Sequence[float], scale: float) -> str:
    digits = 2 if scale == 1.0 and max(values) < 100 else 0
    return f"{median(values) * scale:.{digits}f} [{min(values) * scale:.{digits}f}–{max(values) * scale:.{digits}f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="rounds: servers per mode and kind (default 5)")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "bench/mcp_warm.py", *(argv if argv is not None else sys.argv[1:])])
    load_before = environment.load_average()
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / f"mcp-warm-{os.getpid()}"
    scratch.mkdir(parents=True, exist_ok=True)
    taken = _measure(args.runs, scratch)
    lines = [
        f"`{command}`, {environment.now_utc()}, repository {environment.git_revision(REPO)}, "
        f"load average {load_before} before, {environment.load_average()} after.",
        "",
        f"| median [min–max] of {args.runs} | spare (default) | `--no-spare` | spare / no spare |",
        "|---|---|---|---|",
    ]
    for key, (label, scale) in ROWS.items():
        spare, cold = taken["spare"][key], taken["no spare"][key]
        ratio = median(spare) / median(cold)
        lines.append(f"| {label} | {_cell(spare, scale)} | {_cell(cold, scale)} | {ratio:.2f}× |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
