"""What the kernel's Python stack costs on top of the engine: RSS after 50 cells and time to the first result.

    python bench/python_stack.py --starts 5

Each start is a fresh process (this file, run with ``--child STACK``) that starts the JVM and the engine session
on a thread, as the kernel's early start does, while its main thread imports a Python stack:

- ``none``: nothing (the engine alone);
- ``protocol``: what a kernel speaking the Jupyter wire protocol itself would need (pyzmq, traitlets,
  jupyter_core), with its five sockets bound;
- ``ipykernel``: ``ipykernel.kernelapp`` (IPython with it) and the same sockets, as the kernel has.

It then runs the benchmark's first 50 cells on the session and reports the process's RSS. The stacks run in turn,
``--starts`` times each; the report gives medians and the difference to ``none``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

STACKS = ("none", "protocol", "ipykernel")
CELLS = 50


def child(stack: str, spawned: float) -> None:
    """Runs in the measured process; ``spawned`` is the parent's ``time.time()`` just before spawning it."""
    sys.path.insert(0, str(Path(__file__).parent))
    from kotlin_llm_kernel.config.request import SessionRequest
    from kotlin_llm_kernel.jvm.jvm import start_jvm
    from kotlin_llm_kernel.session.bridge import EngineSession
    from kotlin_llm_kernel.session.events import SnippetWaiter

    from workload import Workload

    sessions: list[EngineSession] = []

    def start_engine() -> None:
        start_jvm()
        sessions.append(EngineSession(SessionRequest()))

    engine = threading.Thread(target=start_engine, name="engine-start")
    engine.start()
    sockets = []
    if stack != "none":
        if stack == "ipykernel":
            import ipykernel.kernelapp  # noqa: F401
        import jupyter_core.paths  # noqa: F401
        import traitlets.config  # noqa: F401
        import zmq

        context = zmq.Context()
        for kind in (zmq.ROUTER, zmq.ROUTER, zmq.PUB, zmq.ROUTER, zmq.REP):  # shell, control, iopub, stdin, heartbeat
            socket = context.socket(kind)
            socket.bind_to_random_port("tcp://127.0.0.1")
            sockets.append(socket)
    engine.join()
    import psutil

    session = sessions[0]
    events = SnippetWaiter(session)
    for cell in Workload().cells()[:CELLS]:
        events.wait(session.submit(cell.code, cell.number).snippet_number)
        if cell.number == 1:
            print("first-result", time.time() - spawned, flush=True)
    print("rss", psutil.Process().memory_info().rss, flush=True)
    os._exit(0)  # the JVM is not destroyed: as the kernel exits


def run_one(stack: str, timeout: float) -> tuple[float, float]:
    """(seconds from spawning the process to the first result, RSS in MB after the cells)."""
    spawned = time.time()
    done = subprocess.run(
        [sys.executable, __file__, "--child", stack, "--spawned", repr(spawned)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    figures = dict(line.split(maxsplit=1) for line in done.stdout.splitlines() if " " in line)
    if "first-result" not in figures or "rss" not in figures:
        raise RuntimeError(f"the {stack} process ended without its figures (exit code {done.returncode})")
    return float(figures["first-result"]), int(figures["rss"]) / 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=5, help="fresh processes per stack (default 5)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per process (default 300)")
    parser.add_argument("--child", choices=STACKS, help=argparse.SUPPRESS)
    parser.add_argument("--spawned", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.spawned)
    figures: dict[str, list[tuple[float, float]]] = {stack: [] for stack in STACKS}
    for round_number in range(1, args.starts + 1):
        for stack in STACKS:
            first, rss = run_one(stack, args.timeout)
            figures[stack].append((first, rss))
            print(
                f"{stack} #{round_number}: first result {first:.2f} s, RSS after {CELLS} cells {rss:.1f} MB", flush=True
            )
    base_first = statistics.median(f for f, _ in figures["none"])
    base_rss = statistics.median(r for _, r in figures["none"])
    print(f"\n| stack | first result, s | RSS after {CELLS} cells, MB | RSS − none, MB |")
    print("|---|---|---|---|")
    for stack, values in figures.items():
        first = statistics.median(f for f, _ in values)
        rss = statistics.median(r for _, r in values)
        print(f"| {stack} | {first:.2f} ({first - base_first:+.2f}) | {rss:.1f} | {rss - base_rss:+.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
