"""``python -m kotlin_llm_kernel.spares.spawner POOL_DIR SPARE_ID``: starts one spare, warms it, publishes it and
watches it until it ends.

Started detached by the provisioner (its own session, so a client's end does not take it along). The kernel is its
child, in a session of its own, without ``JPY_PARENT_PID`` (it must outlive the client that asked for it) and with
``KOTLIN_LLM_SPARE=1`` (its engine compiles an unnumbered warm-up snippet). Ready means it answered ``kernel_info``
and a completion and then idled. Unclaimed, it ends after its idle time, or on SIGTERM (``pool stop``); killed from
outside, it is started again. Claimed, it serves its owner and ends when the owner process is gone without shutting
it down. The spawner reaps it and removes its files.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from queue import Empty
from typing import Any

from . import processes
from .pool import Pool
from .request import SpareRequest

READY_TIMEOUT = 240.0
#: A claimed kernel whose owner process is gone is ended after this many seconds.
OWNER_GRACE = 5.0
#: A spare that dies this many times in a row is not started again.
MAX_FAILURES = 3
POLL = 0.25


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Spawner:
    def __init__(self, pool: Pool, spare_id: str) -> None:
        self.pool = pool
        self.id = spare_id
        self.job: dict[str, Any] = json.loads(pool.request_file(spare_id).read_text(encoding="utf-8"))
        self.request = SpareRequest.from_json(self.job["request"])
        self.stop = threading.Event()
        self.me = {"spawner_pid": os.getpid(), "spawner_start": processes.start_time(os.getpid())}

    def run(self) -> None:
        failures = 0
        try:
            if self.stop.wait(float(self.job.get("delay", 0))):
                return
            while not self.stop.is_set() and failures < MAX_FAILURES:
                outcome = self.serve()
                _log(f"spare {self.id}: {outcome}")
                if outcome.startswith(("ended", "retired")):  # else it died unclaimed: a new one in its place
                    self.pool.log_file(self.id).unlink(missing_ok=True)  # kept only to tell why a spare failed
                    return
                failures += 1
        finally:
            self.cleanup()

    def record(self, **more: Any) -> dict[str, Any]:
        return {"id": self.id, "signature": self.job["signature"], **self.me, "cwd": self.request.cwd} | more

    def serve(self) -> str:
        """Starts, warms and publishes a kernel, then watches it; says how it ended."""
        from jupyter_client.connect import write_connection_file

        connection_file = str(self.pool.connection_file(self.id))
        _, info = write_connection_file(connection_file, ip="127.0.0.1", key=uuid.uuid4().hex.encode())
        argv = [arg.replace("{connection_file}", connection_file) for arg in self.request.argv]
        with open(self.pool.log_file(self.id), "ab") as log:
            kernel = subprocess.Popen(
                argv,
                env=self.request.kernel_env(),
                cwd=self.request.cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        started = processes.start_time(kernel.pid)
        self.pool.write("starting", self.record(pid=kernel.pid, start=started))
        try:
            self.warm(connection_file, kernel)
        except Exception as error:  # noqa: BLE001 - any failure ends this kernel; the pool is told by its files
            _log(f"spare {self.id}: not ready: {error}")
            processes.end_group(kernel.pid, None)
            kernel.wait()
            return "failed"
        connection = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in info.items()}
        self.pool.write(
            "ready", self.record(pid=kernel.pid, start=started, connection=connection, ready_at=time.time())
        )
        self.pool.path("starting", self.id).unlink(missing_ok=True)
        _log(f"spare {self.id}: ready, kernel pid {kernel.pid}")
        return self.watch(kernel, started)

    def warm(self, connection_file: str, kernel: subprocess.Popen[bytes]) -> None:
        """Waits until the kernel answers kernel_info and a completion, then until it idles."""
        from jupyter_client.blocking.client import BlockingKernelClient

        client = BlockingKernelClient(connection_file=connection_file)
        client.load_connection_file()
        client.start_channels(hb=False)  # a heartbeat late on a loaded machine is no death
        try:
            deadline = time.monotonic() + READY_TIMEOUT
            while True:
                if kernel.poll() is not None:
                    raise RuntimeError(f"the kernel exited with {kernel.returncode}")
                if self.stop.is_set() or time.monotonic() > deadline:
                    raise RuntimeError("stopped" if self.stop.is_set() else "no kernel_info reply")
                try:
                    client.kernel_info(reply=True, timeout=2)
                    break
                except TimeoutError:
                    continue
            asked = client.complete('"abc".')
            while True:  # read in steps, so that a stop is heard
                if kernel.poll() is not None or self.stop.is_set() or time.monotonic() > deadline:
                    raise RuntimeError("stopped" if self.stop.is_set() else "no completion reply")
                try:
                    if client.get_shell_msg(timeout=1)["parent_header"].get("msg_id") == asked:
                        break
                except Empty:
                    continue
        finally:
            client.stop_channels()
        _wait_idle(kernel.pid, deadline, self.stop)

    def watch(self, kernel: subprocess.Popen[bytes], started: int | None) -> str:
        ready = self.pool.path("ready", self.id)
        claimed = self.pool.path("claimed", self.id)
        idle_timeout = float(self.job["idle_timeout"])
        ready_at = time.monotonic()
        owner_gone: float | None = None
        while True:
            if kernel.poll() is not None:
                if ready.exists():
                    ready.unlink(missing_ok=True)
                    return f"died unclaimed (exit {kernel.returncode})"
                return f"ended (exit {kernel.returncode})"
            if ready.exists():
                if self.stop.is_set() or time.monotonic() - ready_at > idle_timeout:
                    if self.retire(ready):
                        processes.end_group(kernel.pid, started)
                        kernel.wait()
                        return "retired"
            elif claimed.exists():
                owner = _read(claimed)
                if owner.get("owner_pid") is not None and not processes.running(
                    int(owner["owner_pid"]), owner.get("owner_start")
                ):
                    owner_gone = owner_gone or time.monotonic()
                    if time.monotonic() - owner_gone > OWNER_GRACE:
                        _log(f"spare {self.id}: its owner {owner['owner_pid']} is gone: ending its kernel")
                        processes.end_group(kernel.pid, started)
                        kernel.wait()
                        return "ended (owner gone)"
            else:  # its record was removed: it is to end
                processes.end_group(kernel.pid, started)
                kernel.wait()
                return "retired"
            time.sleep(POLL)

    def retire(self, ready: Any) -> bool:
        """Takes the spare back from the pool (as a claimer would); False when a claimer was first."""
        try:
            ready.rename(self.pool.directory / "kernels" / f"{self.id}.retired")
        except FileNotFoundError:
            return False
        return True

    def cleanup(self) -> None:
        for path in (
            self.pool.path("starting", self.id),
            self.pool.path("ready", self.id),
            self.pool.path("claimed", self.id),
            self.pool.connection_file(self.id),
            self.pool.directory / "kernels" / f"{self.id}.retired",
            self.pool.request_file(self.id),
        ):
            path.unlink(missing_ok=True)


def _read(path: Any) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data
    except (OSError, ValueError):
        return {}


def _wait_idle(pid: int, deadline: float, stop: threading.Event) -> None:
    """Waits until the process used under a tenth of a core for a second (the completion's warm-up is done)."""
    last = processes.cpu_seconds(pid)
    while time.monotonic() < deadline:
        if stop.wait(1.0):
            raise RuntimeError("stopped")
        now = processes.cpu_seconds(pid)
        if now - last < 0.1:
            return
        last = now


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if os.fork() > 0:  # the provisioner waits for this process only: the spawner lives on as nobody's child
        os._exit(0)
    os.setsid()  # a group of its own, which `pool stop` signals
    spawner = Spawner(Pool(args[0]), args[1])
    spawner.pool.write("starting", spawner.record(created=time.time()))
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: spawner.stop.set())
    spawner.run()


if __name__ == "__main__":
    main()
