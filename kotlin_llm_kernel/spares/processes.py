"""Processes that are not our children, read from /proc: alive (not a zombie, not a reused pid), resident memory,
signals to their process group."""

from __future__ import annotations

import os
import signal
import time


def start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot), which tells it from a later process with the same pid; None
    when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None
    return int(fields[19])  # field 22 of stat(5); the split starts at field 3


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def running(pid: int, started: int | None) -> bool:
    """Whether the process ``pid`` that started at ``started`` still runs (a zombie or a reused pid does not)."""
    state = _state(pid)
    return state is not None and state not in ("Z", "X") and (started is None or start_time(pid) == started)


def rss_bytes(pid: int) -> int:
    """The process's resident memory, 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def cpu_seconds(pid: int) -> float:
    """The CPU time the process used so far (user and system)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def signal_group(pgid: int, signum: int) -> bool:
    """Sends ``signum`` to the process group ``pgid``; False when it is gone."""
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def end_group(pid: int, started: int | None, grace: float = 5.0) -> None:
    """Ends the process ``pid`` (a group leader) and its group: SIGTERM, then SIGKILL after ``grace`` seconds."""
    if not running(pid, started):
        return
    signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and running(pid, started):
        time.sleep(0.05)
    if running(pid, started):
        signal_group(pid, signal.SIGKILL)
