"""The first completion of a fresh kernel, and its first cell, with the completion warm-up on and off (issue 32).

``python bench/first_completion.py [--starts N] [--idle S]`` (bench/README.md)

Each round starts, for each case and each mode (warm-up on: the default; off:
``KOTLIN_LLM_JVM_OPTIONS=-Dkotlinllm.completion.warmUp=false``), a fresh kernel and times one request from sending
it to its reply, the clock starting once the kernel_info reply and iopub's idle status arrived ("ready"):

- ``complete now``: ``"abc".`` completed at once, as an agent asks;
- ``complete after idle``: the same after ``--idle`` seconds (a person opening a notebook and typing), JupyterLab's
  case, where it drops an answer later than 1 s;
- ``execute now``: ``1 + 1`` at once (the first result);
- ``execute after the first completion``: ``complete now``, then ``1 + 1`` as soon as its reply arrived, when the
  warm-up (queued behind the compiler's start) runs and must yield to the cell.

Each completion is noted as offering ``length`` and ``uppercase`` or not, with its metadata (and, after idle, the
RSS of the kernel's process tree just before the request: what the warm-up read is kept). The report (median
[min–max] per case and mode, the ratio on/off) goes to stdout.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import time
from typing import Any

import psutil
from kotlin_llm_kernel.jvm.jvm_options import ENV_JVM_OPTIONS

import environment
from environment import REPO
from kernels import KernelExecutor, ready_kernel

#: Each mode's KOTLIN_LLM_JVM_OPTIONS (the class-data sharing archive's key has them, so each mode has its own).
MODES = {"on": "", "off": "-Dkotlinllm.completion.warmUp=false"}
CASES = ("complete now", "complete after idle", "execute now", "execute after the first completion")
COMPLETED = '"abc".'
EXPECTED = ("length", "uppercase")
TIMEOUT = 180.0


def _complete(executor: KernelExecutor) -> tuple[float, dict[str, Any]]:
    client = executor.client
    sent = time.monotonic()
    msg_id = client.complete(COMPLETED, len(COMPLETED))
    reply = executor.shell_reply(msg_id, sent + TIMEOUT, "complete_reply")
    return time.monotonic() - sent, reply["content"]


def tree_rss(pid: int) -> int:
    """The resident memory of process ``pid`` and its children, in bytes."""
    process = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [process, *process.children(recursive=True)])


def _offered(content: dict[str, Any]) -> bool:
    names = {match.split("(")[0] for match in content.get("matches", [])}
    return all(name in names for name in EXPECTED)


def _one(case: str, env: dict[str, str], idle: float) -> tuple[float, str]:
    """Seconds from sending the case's request to its reply, and a note (the completion's metadata)."""
    with ready_kernel(env, [], TIMEOUT) as executor:
        rss = ""
        if case == "complete after idle":
            time.sleep(idle)  # the person's pause is the point of the case, not a wait for an event
            if executor.pid is not None:  # what the warm-up read is kept: the memory it costs
                rss = f"rss {tree_rss(executor.pid) / 1e6:.0f} MB "
        if case == "execute after the first completion":
            _complete(executor)
        if case.startswith("complete"):
            seconds, content = _complete(executor)
            offered = "offered" if _offered(content) else f"NOT offered ({len(content.get('matches', []))} matches)"
            return seconds, f"{rss}{offered} {json.dumps(content.get('metadata', {}).get('kotlin_llm', {}))}"
        outcome = executor.execute("1 + 1", TIMEOUT)
        if outcome.status != "ok" or outcome.text != "2":
            raise RuntimeError(f"{case}: 1 + 1 gave {outcome.status} {outcome.text}")
        return outcome.seconds, ""


def _summary(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}–{max(values):.2f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3, help="fresh kernels per case and mode (default 3)")
    parser.add_argument("--idle", type=float, default=8.0, help="seconds before 'complete after idle' (default 8)")
    parser.add_argument("--modes", default="on,off", help="which modes, in this order each round (default on,off)")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "bench/first_completion.py", *(argv if argv is not None else sys.argv[1:])])
    modes = [mode for mode in args.modes.split(",") if mode]
    envs = {mode: {**environment.kernel_environment(None), ENV_JVM_OPTIONS: MODES[mode]} for mode in modes}
    for mode in modes:  # each mode's class-data sharing archive is made before any start is timed
        subprocess.run([sys.executable, "-m", "kotlin_llm_kernel.cds"], env=envs[mode], check=True)
    load_before = environment.load_average()
    seconds: dict[tuple[str, str], list[float]] = {}
    notes: dict[tuple[str, str], set[str]] = {}
    for round_number in range(args.starts):
        for case in CASES:
            for mode in modes:
                value, note = _one(case, envs[mode], args.idle)
                seconds.setdefault((case, mode), []).append(value)
                notes.setdefault((case, mode), set()).add(note)
                print(f"[round {round_number + 1}] {case}, warm-up {mode}: {value:.3f} s {note}", file=sys.stderr)
    lines = [
        f"`{command}`, {environment.now_utc()}, repository {environment.git_revision(REPO)}, "
        f"load average {load_before} before, {environment.load_average()} after.",
        "",
        "| request (seconds to its reply) | "
        + " | ".join(f"warm-up {mode}" for mode in modes)
        + (" | on / off |" if len(modes) == 2 else " |"),
        "|---|" + "---|" * (len(modes) + (1 if len(modes) == 2 else 0)),
    ]
    for case in CASES:
        row = [_summary(seconds[(case, mode)]) for mode in modes]
        if len(modes) == 2:
            on, off = (statistics.median(seconds[(case, mode)]) for mode in modes)
            row.append(f"{on / off:.2f}")
        lines.append(f"| {case} | " + " | ".join(row) + " |")
    lines.append("")
    for (case, mode), found in notes.items():
        if case.startswith("complete"):
            lines.append(f"- {case}, warm-up {mode}: metadata {', '.join(sorted(found))}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
