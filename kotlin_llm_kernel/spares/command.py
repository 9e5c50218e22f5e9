"""``python -m kotlin_llm_kernel pool [list | stop] [--dir DIR]``: shows the warm spares of this user's pool, or stops
those not handed out (a kernel handed out serves its client and ends with it)."""

from __future__ import annotations

import argparse
import signal
import time

from . import processes
from .pool import Pool, Record


def describe(record: Record, now: float) -> str:
    pid = record.pid
    memory = f"{processes.rss_bytes(pid) / 2**20:.0f} MB" if pid and record.kernel_running() else "-"
    since = record.data.get("ready_at") or record.data.get("created")
    age = f"{now - float(since):.0f} s" if since else "-"
    return f"{record.id}  {record.state:<8}  pid {pid or '-':<7}  {memory:>7}  {age:>7}  {record.data.get('cwd', '')}"


def stop(pool: Pool, timeout: float = 30.0) -> list[str]:
    """Stops the spares not handed out (their spawners end their kernels); returns their ids once they are gone."""
    stopped = []
    for record in pool.records("starting", "ready"):
        spawner = record.data.get("spawner_pid")
        if spawner is not None and processes.signal_group(int(spawner), signal.SIGTERM):
            stopped.append(record)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(r.spawner_running() for r in stopped):
        time.sleep(0.1)
    for record in stopped:  # a spawner that did not end in time: its kernel and itself end now
        if record.spawner_running():
            processes.signal_group(int(record.data["spawner_pid"]), signal.SIGKILL)
        if record.pid is not None and record.kernel_running():
            processes.signal_group(record.pid, signal.SIGKILL)
    return [r.id for r in stopped]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m kotlin_llm_kernel pool", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", nargs="?", choices=["list", "stop"], default="list")
    parser.add_argument("--dir", help="the pool's directory (default: kotlin-llm-spares in the Jupyter runtime dir)")
    args = parser.parse_args(argv)
    pool = Pool(args.dir)
    if args.action == "stop":
        ids = stop(pool)
        print(f"Stopped {len(ids)} spare{'s' if len(ids) != 1 else ''}" + (f": {', '.join(ids)}" if ids else ""))
        return
    records = pool.records() if pool.directory.is_dir() else []
    if not records:
        print(f"No spares in {pool.directory}")
        return
    now = time.time()
    print(f"Spares in {pool.directory}:")
    for record in records:
        print(describe(record, now))
