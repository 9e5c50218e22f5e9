"""A spare's side: a kernel process started by :mod:`.spawn` (``KOTLIN_LLM_SPARE_ID`` in its environment) starts its
JVM and session, warms them (the engine's unnumbered warm-up snippet, a completion), waits on its socket in the pool
until a kernel start claims it, and then becomes that start's kernel: it takes the claimer's connection file, output
streams and environment, binds the client's ports and serves. It ends when its claimer does.

Unclaimed, it retires after its idle time. What it printed before it was claimed is in the pool's log.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..config.kernel_config import KernelConfig
from ..config.spares import SpareSettings
from ..session import early
from . import processes
from .pool import Pool
from .request import ENV_SPARE_DELAY, ENV_SPARE_ID, with_connection_file

#: How long a claimed spare waits for its claimer to connect (it renamed the record just before).
CLAIMER_TIMEOUT = 30.0
#: The longest message a claimer sends (its connection file's path and a few variables).
MESSAGE_LIMIT = 1 << 20
#: The warm-up's completion: string members, what a first Tab most often asks.
WARM_UP_COMPLETION = ('"abc".', 6)


@dataclass
class Claim:
    """What a claimer gave the spare: the connection file, the variables that are the client's own, and the open
    channel, whose end is the claimer's end."""

    connection_file: str
    env: dict[str, str]
    channel: socket.socket

    def bound(self) -> None:
        """Tells the claimer that the client's ports are bound: from here on this process is the kernel."""
        self.channel.sendall(b"bound\n")

    def watch(self, end: Callable[[], None]) -> None:
        """Calls ``end`` when the claimer is gone (its end of the channel closed)."""

        def wait() -> None:
            try:
                while self.channel.recv(1024):
                    pass
            except OSError:
                pass
            end()

        threading.Thread(target=wait, name="kotlin-llm-spare-claimer", daemon=True).start()


def run_as_spare(loaded: KernelConfig, spare: str) -> None:
    """Starts, warms and publishes this spare; once claimed, runs the kernel for the claimer. Ends the process."""
    from ..jvm.jvm import exit_now

    pool = Pool(loaded.spares.pool or None)
    wait_before_start()
    early.begin(loaded.request)
    from ..jupyter.app import launch  # imported while the JVM starts, as a cold start does

    started = early.current()
    try:
        assert started is not None  # begun just above
        started.session.result().complete(*WARM_UP_COMPLETION)
    except Exception as error:  # noqa: BLE001 - any failure ends the spare; its log says why
        print(f"kotlin-llm spare {spare}: not ready: {error}", file=sys.stderr, flush=True)
        pool.remove(spare, keep_log=True)
        exit_now(1)
    idle()
    claim = wait_for_claim(pool, spare, loaded.spares)
    if claim is None:
        pool.remove(spare)
        exit_now(0)
        return
    pool.log_file(spare).unlink(missing_ok=True)
    os.environ.update(claim.env)
    claim.watch(lambda: exit_now(0))
    # ipykernel's parent 1 starts no parent watch (the claimer's end of the channel is that watch) and prints no
    # console banner, which a kernel with no parent at all prints to the client's terminal
    arguments = [*with_connection_file(loaded.other_arguments, claim.connection_file), "--IPKernelApp.parent_handle=1"]
    launch(replace(loaded, other_arguments=arguments), lambda _app: claim.bound())
    exit_now(0)


def spare_id() -> str | None:
    """This process's id in the pool when it was started as a spare."""
    return os.environ.get(ENV_SPARE_ID) or None


def wait_before_start() -> None:
    """The delay its starter asked for, so that a just started kernel's first cells go first."""
    try:
        delay = float(os.environ.get(ENV_SPARE_DELAY, "0"))
    except ValueError:
        delay = 0.0
    if delay > 0:
        time.sleep(delay)


def idle(deadline_seconds: float = 60.0) -> None:
    """Waits until this process used under a tenth of a core for a second (the JIT's work after the warm-up)."""
    deadline = time.monotonic() + deadline_seconds
    last = processes.cpu_seconds(os.getpid())
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = processes.cpu_seconds(os.getpid())
        if now - last < 0.1:
            return
        last = now


def wait_for_claim(pool: Pool, spare: str, settings: SpareSettings) -> Claim | None:
    """Publishes this spare as ready and waits for a claimer; None when it retired (idle, or its record was taken
    away by ``pool stop``)."""
    starting = pool.path("starting", spare)
    if not starting.exists():
        return None  # stopped while it started
    path = pool.socket_path(spare)
    path.unlink(missing_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    os.chmod(path, 0o600)
    server.listen(1)
    record: dict[str, Any] = json.loads(starting.read_text(encoding="utf-8"))
    pool.write("ready", record | {"socket": str(path), "ready_at": time.time()})
    starting.unlink(missing_ok=True)
    server.settimeout(max(0.1, settings.idle_timeout))
    try:
        connection, _ = server.accept()
    except TimeoutError:
        if pool.retire(spare):
            return None
        server.settimeout(CLAIMER_TIMEOUT)  # claimed as it timed out: the claimer connects now
        try:
            connection, _ = server.accept()
        except TimeoutError:
            return None
    finally:
        server.close()
        path.unlink(missing_ok=True)
    return _receive(connection)


def _receive(connection: socket.socket) -> Claim | None:
    connection.settimeout(CLAIMER_TIMEOUT)
    fds: list[int] = []
    data = b""
    try:
        while not data.endswith(b"\n"):
            message, ancillary, _, _ = socket.recv_fds(connection, MESSAGE_LIMIT, 2)
            if not message:
                return None
            data += message
            fds.extend(ancillary)
    except (OSError, TimeoutError):
        return None
    connection.settimeout(None)
    said = json.loads(data)
    if len(fds) == 2:  # the claimer's stdout and stderr: where the client reads the kernel's own output
        for fd, target in zip(fds, (1, 2), strict=True):
            os.dup2(fd, target)
            os.close(fd)
        sys.stdout.flush()
    return Claim(str(said["connection_file"]), {str(k): str(v) for k, v in said.get("env", {}).items()}, connection)
