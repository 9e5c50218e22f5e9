"""``python -m kotlin_llm_kernel pool [list | stop] [--dir DIR]``: shows the warm spares of this user's pool, or stops
those not handed out (a kernel handed out serves its client and ends with it)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from . import processes
from .pool import Pool, Record


def describe(record: Record, now: float) -> str:
    pid = record.pid
    memory = f"{processes.rss_bytes(pid) / 2**20:.0f} MB" if pid and record.kernel_running() else "-"
    since = record.data.get("ready_at") or record.data.get("created")
    age = f"{now - float(since):.0f} s" if since else "-"
    return f"{record.id}  {record.state:<8}  pid {pid or '-':<7}  {memory:>7}  {age:>7}  {record.data.get('cwd', '')}"


def stop(pool: Pool, grace: float = 10.0, records: Sequence[Record] | None = None) -> list[str]:
    """Stops the spares not handed out (of ``records``, default all); returns their ids once they are gone."""
    if records is None:
        records = pool.live("starting", "ready") if pool.directory.is_dir() else []
    stopped = []
    for record in records:
        if record.state == "ready" and not pool.retire(record.id):
            continue  # claimed meanwhile: it serves a client now
        pool.path("starting", record.id).unlink(missing_ok=True)  # a starting spare then never publishes itself
        stopped.append(record)
    for record in stopped:
        if record.pid is not None:
            processes.end_group(record.pid, record.data.get("start"), grace)
        pool.remove(record.id)
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
    records = pool.live() if pool.directory.is_dir() else []
    if not records:
        print(f"No spares in {pool.directory}")
        return
    now = time.time()
    print(f"Spares in {pool.directory}:")
    for record in records:
        print(describe(record, now))
