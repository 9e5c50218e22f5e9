"""Starting the next spare: a kernel process of the same argv, environment and working directory as a start, with
``KOTLIN_LLM_SPARE=1`` and its id in the pool, detached (a session of its own, nobody's child once its starter
returns) and without ``JPY_PARENT_PID``: it must outlive the short-lived client that asked for it."""

from __future__ import annotations

import os
import subprocess
import time

from ..config.spares import SpareSettings
from . import processes
from .pool import Pool
from .request import SpareRequest

#: What a spare is reckoned to take against the memory ceiling (an idle one measured ~330 MB of RSS).
SPARE_ESTIMATE_MB = 350
#: The longest path a Unix socket may be bound to (sun_path less its terminating zero).
SOCKET_PATH_LIMIT = 107


def ensure_spare(pool: Pool, request: SpareRequest, settings: SpareSettings, delay: float) -> str | None:
    """Starts a spare for ``request`` that begins its JVM after ``delay`` seconds, unless the pool holds
    ``settings.size`` of its kind or one more would pass the memory ceiling; returns its id, or None."""
    if settings.size <= 0 or len(os.fsencode(pool.socket_path(pool.new_id()))) > SOCKET_PATH_LIMIT:
        return None  # a spare in a pool this deep could not bind its socket: every start would make a failing one
    signature = request.signature
    with pool.locked():  # counting and recording are one step: two starts at once start one spare
        waiting = pool.live("starting", "ready")
        if sum(record.data.get("signature") == signature for record in waiting) >= settings.size:
            return None
        if (len(waiting) + 1) * SPARE_ESTIMATE_MB > settings.memory_ceiling:
            return None
        spare_id = pool.new_id()
        pid = _spawn_detached(pool, spare_id, request, delay)
        if pid is None:
            return None
        pool.write(
            "starting",
            {
                "id": spare_id,
                "signature": signature,
                "cwd": request.cwd,
                "pid": pid,
                "start": processes.start_time(pid),
                "created": time.time(),
            },
        )
    return spare_id


def _spawn_detached(pool: Pool, spare_id: str, request: SpareRequest, delay: float) -> int | None:
    """Starts the spare from a child that ends at once (so the spare is reparented, never left a zombie here); its
    pid, or None when it could not start."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # only os calls and a Popen here: this process may have threads
        os.close(read_end)
        pid = 0
        try:
            os.setsid()
            with open(pool.log_file(spare_id), "ab") as log:
                pid = subprocess.Popen(
                    list(request.argv),
                    env=request.kernel_env(spare_id, delay),
                    cwd=request.cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                ).pid
        finally:
            os.write(write_end, str(pid).encode())
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        said = reader.read()
    os.waitpid(child, 0)
    pid = int(said or b"0")
    return pid or None
