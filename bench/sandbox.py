"""What the sandbox costs (issue 41): time to the first result and warm cells, sandboxed kernel against the usual one.

``python bench/sandbox.py [--starts N] [--cells N]``

Each round starts, in turn, a fresh kernel of each variant, times ``start_kernel()`` → the ``execute_reply`` of a
first ``1 + 1`` (its result checked), then ``--cells`` more ``1 + 1`` cells one after the other (each from sending it
to its reply and idle), reads whether the JVM mapped a class-data sharing archive (``/proc/self/maps`` from a cell),
then shuts the kernel down and waits for its processes to end:

- **plain**: the ``kotlin-llm`` kernelspec, with the archive of the user's cache (made first, as bench/run.py does);
- **sandboxed**: the ``kotlin-llm-sandboxed`` kernelspec (bwrap as the dedicated user, ``--network maven``: the
  egress proxy and the ZMQ relay), with the same cache: when the sandbox's user cannot read it (root's, under
  ``/root``), class-data sharing is off inside;
- **sandboxed, readable archive**: the same, with ``KOTLIN_LLM_CACHE_DIR`` naming a directory anyone can read that
  holds an archive made for this configuration first (bound read-only inside).

Ratios are taken within a round (the variants of one round ran one after the other) and their median is shown, so
that a change of the machine's load between rounds weighs less. The "Sandbox" section of ``--results`` is replaced
(the other sections are kept).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from completion_report import replace_section
from environment import BENCH_DIR
from timed_start import median_text, started_kernel

HEADING = "## Sandbox"
PLAIN, SANDBOXED, READABLE = "plain", "sandboxed", "sandboxed, readable archive"
TIMEOUT = 240
#: A cell that says whether this JVM mapped a class-data sharing archive (a dynamic one: ``.jsa``; an AOT cache:
#: ``.aot``) beside the JDK's own ``classes.jsa``.
MAPPED = (
    'java.io.File("/proc/self/maps").readLines().map { it.substringAfterLast(" ") }'
    '.any { (it.endsWith(".jsa") || it.endsWith(".aot")) && "kotlin-llm" in it }'
)


@dataclass
class Start:
    first: float
    warm: list[float]
    archive: bool


async def one_start(kernel_name: str, env: dict[str, str], cells: int) -> Start:
    async with started_kernel(kernel_name, env, TIMEOUT) as kernel:
        warm = []
        for _ in range(cells):
            sent = time.monotonic()
            if await kernel.run("1 + 1") != "2":
                raise RuntimeError(f"{kernel_name}: 1 + 1 is not 2")
            warm.append(time.monotonic() - sent)
        archive = await kernel.run(MAPPED) == "true"
        return Start(kernel.first, warm, archive)


def ratios(results: dict[str, list[Start]], name: str, of: str) -> tuple[float, float]:
    """The medians over the rounds of ``name``'s first result and warm median over ``of``'s in the same round."""
    pairs = list(zip(results[name], results[of], strict=True))
    first = statistics.median(a.first / b.first for a, b in pairs)
    warm = statistics.median(statistics.median(a.warm) / statistics.median(b.warm) for a, b in pairs)
    return first, warm


def render(results: dict[str, list[Start]], cells: int, command: str, load: tuple[float, float]) -> str:
    starts = len(results[PLAIN])
    lines = [
        HEADING,
        "",
        f"`{command}`: {starts} rounds, each starting every variant once, in turn, on a {os.cpu_count()}-core machine",
        f"shared with other work (1-minute load average {load[0]:.1f} at the start, {load[1]:.1f} at the end: read the",
        "ratios). *First result*: `start_kernel()` → the `execute_reply` of a first `1 + 1`; *warm `1 + 1`*: the",
        f"median of {cells} `1 + 1` cells after it, each from sending it to its reply and idle. Times: median",
        "[min–max] over the starts; ratios: median of the per-round ratios to *plain*. *Archive*: starts whose JVM",
        "mapped a class-data sharing archive (read from `/proc/self/maps` in a cell).",
        "",
        "| variant | first result | warm `1 + 1` | first / plain | warm / plain | archive |",
        "|---|---|---|---|---|---|",
    ]
    for name, runs in results.items():
        first = median_text([r.first for r in runs])
        warm = median_text([statistics.median(r.warm) for r in runs], "ms", 1000.0, 1)
        first_ratio, warm_ratio = ratios(results, name, PLAIN)
        mapped = sum(r.archive for r in runs)
        lines.append(f"| {name} | {first} | {warm} | {first_ratio:.2f} | {warm_ratio:.2f} | {mapped}/{len(runs)} |")
    return "\n".join(lines) + "\n"


async def run(variants: dict[str, tuple[str, dict[str, str]]], starts: int, cells: int) -> dict[str, list[Start]]:
    results: dict[str, list[Start]] = {name: [] for name in variants}
    for round_number in range(starts):
        for name, (kernel_name, env) in variants.items():
            start = await one_start(kernel_name, env, cells)
            results[name].append(start)
            warm = statistics.median(start.warm) * 1000
            print(
                f"round {round_number + 1}: {name}: first {start.first:.2f} s, warm {warm:.1f} ms, "
                f"archive {start.archive}",
                flush=True,
            )
    return results


def readable_cache() -> Path:
    """A cache directory anyone can read, holding the archive of this configuration (made here, as root would)."""
    directory = Path(tempfile.mkdtemp(prefix="kotlin-llm-bench-cache-"))
    directory.chmod(0o755)
    env = os.environ | {"KOTLIN_LLM_CACHE_DIR": str(directory)}
    subprocess.run([sys.executable, "-m", "kotlin_llm_kernel.cds"], env=env, check=True)
    for path in directory.iterdir():
        path.chmod(0o644 if path.is_file() else 0o755)
    return directory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--cells", type=int, default=30)
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "RESULTS.md")
    args = parser.parse_args(argv)
    subprocess.run([sys.executable, "-m", "kotlin_llm_kernel.cds"], check=True)
    cache = readable_cache()
    variants = {
        PLAIN: ("kotlin-llm", {}),
        SANDBOXED: ("kotlin-llm-sandboxed", {}),
        READABLE: ("kotlin-llm-sandboxed", {"KOTLIN_LLM_CACHE_DIR": str(cache)}),
    }
    try:
        load_before = os.getloadavg()[0]
        results = asyncio.run(run(variants, args.starts, args.cells))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    command = f"python bench/sandbox.py --starts {args.starts} --cells {args.cells}"
    text = render(results, args.cells, command, (load_before, os.getloadavg()[0]))
    print(text)
    previous = args.results.read_text(encoding="utf-8") if args.results.exists() else ""
    args.results.write_text(replace_section(previous, HEADING, text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
