"""A kernel start's side: ``python -m kotlin_llm_kernel -f FILE`` first claims a ready spare of the same argv,
settings, environment and working directory. On a hit it hands the spare its connection file, its stdout and stderr
and the client's own variables, and stays as the process the client started: signals sent to it (an interrupt in
"signal" mode, a terminate) go on to the spare, it ends when the spare ends, and the spare ends when it is killed or
its client dies (as ipykernel's parent watch would end a kernel). Hit or miss, the next spare is started in the
background. Every client gets warm starts from the plain kernelspec: JupyterLab, Notebook, VS Code, nbclient,
``jupyter execute``, papermill, ``jupyter console`` and their restarts (a restart keeps its ports and key).
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
from collections.abc import Sequence

from ..config.spares import SpareSettings
from ..session.early import ENV_SPARE
from . import processes
from .pool import Pool, Record
from .request import IGNORED_ENV, SpareRequest, kernel_argv
from .spawn import ensure_spare

#: How long a claimed spare may take to bind the client's ports before the start goes on cold.
BIND_TIMEOUT = 60.0
#: Signals passed on to the spare's process group.
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
#: The client's own variables a spare takes over (``JPY_PARENT_PID`` is watched here, not there).
CLIENT_ENV = IGNORED_ENV - {"JPY_PARENT_PID"}


def serve_from_spare(arguments: Sequence[str], settings: SpareSettings) -> int | None:
    """Serves this start with a spare until it ends (its exit status), or None: there was none, and the kernel starts
    here, cold. Either way a spare is prepared for the next start."""
    if settings.size <= 0 or os.environ.get(ENV_SPARE) == "1":
        return None
    argv, connection_file = kernel_argv(arguments)
    if connection_file is None:
        return None  # ipykernel makes up its connection file: a spare cannot be told it
    request = SpareRequest.of(argv, os.environ, os.getcwd())
    pool = Pool(settings.pool or None)
    claimed = pool.claim(request.signature, os.getpid())
    channel = _hand_over(pool, claimed, connection_file) if claimed is not None else None
    ensure_spare(pool, request, settings, settings.refill_delay)
    if claimed is None or channel is None:
        return None
    try:
        return _serve(channel, claimed)
    finally:
        pool.remove(claimed.id)


def _hand_over(pool: Pool, spare: Record, connection_file: str) -> socket.socket | None:
    """Gives ``spare`` this start; the open channel once it bound the client's ports, else None (it is gone)."""
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        channel.connect(str(spare.data["socket"]))
        message = {
            "connection_file": os.path.abspath(connection_file),
            "env": {k: v for k, v in os.environ.items() if k in CLIENT_ENV},
        }
        socket.send_fds(channel, [json.dumps(message).encode() + b"\n"], [1, 2])
        channel.settimeout(BIND_TIMEOUT)
        said = b""
        while not said.endswith(b"\n"):
            part = channel.recv(64)
            if not part:
                raise ConnectionError("the spare ended before it bound the ports")
            said += part
        channel.settimeout(None)
    except (OSError, KeyError):
        channel.close()
        if spare.pid is not None:
            processes.end_group(spare.pid, spare.data.get("start"))
        pool.remove(spare.id, keep_log=True)
        return None
    return channel


def _serve(channel: socket.socket, spare: Record) -> int:
    """Stays until the spare ends, passing signals on; ends the spare when the client that started this is gone."""
    pid = spare.pid
    assert pid is not None  # a claimed record has its process
    for signum in FORWARDED:
        signal.signal(signum, lambda number, _frame: processes.signal_group(pid, number))
    parent = os.environ.get("JPY_PARENT_PID", "")
    parent_pid = int(parent) if parent.isdigit() and int(parent) == os.getppid() else None
    while True:
        try:
            readable, _, _ = select.select([channel], [], [], 1.0)
        except InterruptedError:
            continue
        if readable:
            try:
                if not channel.recv(1024):
                    break
            except OSError:
                break
        if parent_pid is not None and os.getppid() != parent_pid:  # the client died without shutting down
            processes.end_group(pid, spare.data.get("start"))
            break
    channel.close()
    return 0
