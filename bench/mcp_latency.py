"""What the MCP server adds to a run: the same warm cells through the Python API in this process and through
``kotlin-llm-mcp`` driven by the MCP SDK's client over stdio (see bench/README.md).

``python bench/mcp_latency.py [--runs 50]``

Each way gets one fresh session, both warmed with ``--runs`` cells first; then each cell of :data:`CELLS` runs
``--runs`` times in each, the two ways taking turns, timed from the call to its result: the Python API's
``execute`` returning, and the client's ``call_tool`` returning (with the JSON-RPC round trip and the result's
bounding and serialization). The report gives the median per cell and way, and what the server adds (difference
and ratio of the medians).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

import anyio
from kotlin_llm_kernel import ScriptSession, SessionOptions
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import environment
from environment import REPO
from measure import median

#: Cells of different result sizes: a value, a computation, 100 printed lines.
CELLS = {
    "`1 + 1`": "1 + 1",
    "`(1..100_000).sum()`": "(1..100_000).sum()",
    "100 printed lines": 'for (i in 1..100) println("line $i")',
}
SERVER = Path(sys.executable).parent / "kotlin-llm-mcp"
TIMEOUT = 180.0


async def _paired(runs: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Both ways side by side, one run of each in turn, so that the machine's load weighs on both alike."""
    api: dict[str, list[float]] = {label: [] for label in CELLS}
    served: dict[str, list[float]] = {label: [] for label in CELLS}
    parameters = StdioServerParameters(command=str(SERVER), args=[], env=dict(os.environ))
    with ScriptSession(options=SessionOptions(echo=False)) as direct:
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for repetition in range(runs + 1):  # the first round warms both up
                for label, code in [("warm-up", "1 + 1")] * (runs if repetition == 0 else 0) + list(CELLS.items()):
                    started = time.perf_counter()
                    if not direct.execute(code).ok:
                        raise RuntimeError(f"cell failed: {code}")
                    middle = time.perf_counter()
                    result = await session.call_tool("run", {"code": code}, read_timeout_seconds=TIMEOUT)
                    ended = time.perf_counter()
                    if result.is_error:
                        raise RuntimeError(f"cell failed over MCP: {code}")
                    if repetition > 0:
                        api[label].append(middle - started)
                        served[label].append(ended - middle)
    return api, served


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=50, help="warm-up runs, then timed runs per cell (default 50)")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "bench/mcp_latency.py", *(argv if argv is not None else sys.argv[1:])])
    load_before = environment.load_average()
    api, served = anyio.run(_paired, args.runs)
    lines = [
        f"`{command}`, {environment.now_utc()}, repository {environment.git_revision(REPO)}, "
        f"load average {load_before} before, {environment.load_average()} after.",
        "",
        f"| cell (median of {args.runs}, warm) | Python API (ms) | MCP `run` (ms) | added (ms) | MCP / API |",
        "|---|---|---|---|---|",
    ]
    for label in CELLS:
        a, m = median(api[label]) * 1000, median(served[label]) * 1000
        lines.append(f"| {label} | {a:.1f} | {m:.1f} | {m - a:+.1f} | {m / a:.2f}× |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
