"""The ``kotlin-llm-spares`` kernel provisioner: a start gets a warm spare whose request matches, or starts cold.

Named in a kernelspec's ``metadata.kernel_provisioner`` (the ``kotlin-llm-warm`` kernel that ``python -m
kotlin_llm_kernel install`` writes); its ``config`` sets the traits below (``c.SpareProvisioner.*`` in a Jupyter
config file too). A handed-out spare is not the client's child: poll, wait, signals and kill go by its pid (checked
with its start time) and its process group. After every start it asks for the next spare, which a detached spawner
starts after ``refill_delay`` seconds.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from typing import Any, cast

from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.provisioning.local_provisioner import LocalProvisioner
from jupyter_client.provisioning.provisioner_base import KernelProvisionerBase
from traitlets import Float, Integer, Unicode

from . import processes
from .pool import Pool, Record, write_json
from .request import SpareRequest

#: What a starting spare is reckoned to take against the memory ceiling (an idle one measured ~330 MB of RSS).
SPARE_ESTIMATE_MB = 350
#: A starting record whose spawner has not said its pid within this time is stale.
SPAWNER_START_TIMEOUT = 60.0


class SpareProvisioner(LocalProvisioner):
    pool_size = Integer(
        1, config=True, help="Spares kept ready for each kind of start (argv, environment, working directory); 0: none"
    )
    idle_timeout = Float(600.0, config=True, help="Seconds an unclaimed spare waits before it ends itself")
    memory_ceiling = Integer(
        2048, config=True, help="MB all spares of the pool may take together; no spare is started past it"
    )
    refill_delay = Float(
        5.0, config=True, help="Seconds after a start before the next spare starts (the new kernel's first cells first)"
    )
    pool_dir = Unicode("", config=True, help="The pool's directory (default: kotlin-llm-spares in the runtime dir)")

    spare: Record | None = None

    def pool(self) -> Pool:
        return Pool(self.pool_dir or None)

    @property
    def has_process(self) -> bool:
        return self.spare is not None or super().has_process

    async def pre_launch(self, **kwargs: Any) -> dict[str, Any]:
        self.spare = None
        if self.pool_size <= 0:
            return await super().pre_launch(**kwargs)
        prepared = await KernelProvisionerBase.pre_launch(
            self, **{k: v for k, v in kwargs.items() if k != "extra_arguments"}
        )
        argv = [*self.kernel_spec.argv, *kwargs.get("extra_arguments", [])]
        self._request = SpareRequest.of(argv, prepared["env"], kwargs.get("cwd"))
        pool = self.pool()
        spare = pool.claim(self._request.signature(), os.getpid())
        if spare is None:
            self.log.info("kotlin-llm spares: none ready for this argv, environment and working directory: cold start")
            return await super().pre_launch(**kwargs)
        self.spare = spare
        connection_file = str(pool.connection_file(spare.id))
        prepared["cmd"] = [arg.replace("{connection_file}", connection_file) for arg in argv]
        return prepared

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        if self.spare is None:
            info = await super().launch_kernel(cmd, **kwargs)
        else:
            self.process = None
            self.pid = self.pgid = self.spare.pid
            self.cwd = self._request.cwd
            self.ports_cached = False
            connection = dict(self.spare.data["connection"])
            connection["key"] = str(connection["key"]).encode()  # the manager compares it with its session's key, bytes
            info = cast(KernelConnectionInfo, connection)
            self.connection_info = info
            self.log.info("kotlin-llm spares: handed out spare %s (pid %s)", self.spare.id, self.spare.pid)
        if self.pool_size > 0:
            try:
                self.refill(self._request)
            except OSError as error:
                self.log.warning("kotlin-llm spares: no next spare: %s", error)
        return info

    def refill(self, request: SpareRequest) -> None:
        """Starts a spawner for the next spare of ``request`` unless ``pool_size`` of them are ready or starting, or
        one more would pass the memory ceiling."""
        pool = self.pool()
        signature = request.signature()
        with pool.locked():
            now = time.time()
            live = []
            for record in pool.records("starting", "ready"):
                if record.data.get("spawner_pid") is None:
                    if now - float(record.data.get("created", now)) > SPAWNER_START_TIMEOUT:
                        record.path.unlink(missing_ok=True)
                        continue
                elif not record.spawner_running():
                    record.path.unlink(missing_ok=True)
                    continue
                live.append(record)
            if sum(1 for r in live if r.data.get("signature") == signature) >= self.pool_size:
                return
            used = sum(
                processes.rss_bytes(r.pid) // 2**20 if r.state == "ready" and r.pid else SPARE_ESTIMATE_MB for r in live
            )
            if used + SPARE_ESTIMATE_MB > self.memory_ceiling:
                self.log.info(
                    "kotlin-llm spares: no next spare: the pool takes %s MB, its ceiling is %s MB",
                    used,
                    self.memory_ceiling,
                )
                return
            spare_id = pool.new_id()
            write_json(
                pool.request_file(spare_id),
                {
                    "request": request.to_json(),
                    "signature": signature,
                    "idle_timeout": self.idle_timeout,
                    "delay": self.refill_delay,
                },
            )
            pool.write("starting", {"id": spare_id, "signature": signature, "created": now, "cwd": request.cwd})
            env = {k: v for k, v in os.environ.items() if k != "JPY_PARENT_PID"}
            with open(pool.log_file(spare_id), "ab") as log:
                spawner = subprocess.Popen(
                    [sys.executable, "-m", "kotlin_llm_kernel.spares.spawner", str(pool.directory), spare_id],
                    env=env,
                    cwd="/",
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            spawner.wait()  # it forks and exits at once: the spawner itself is nobody's child here

    async def poll(self) -> int | None:
        if self.spare is None:
            return await super().poll()
        return None if processes.running(self.spare.pid or 0, self.spare.data.get("start")) else 1

    async def wait(self) -> int | None:
        if self.spare is None:
            return await super().wait()
        while (status := await self.poll()) is None:
            await asyncio.sleep(0.1)
        return status

    async def send_signal(self, signum: int) -> None:
        if self.spare is None:
            return await super().send_signal(signum)
        if signum != 0 and await self.poll() is None:
            processes.signal_group(self.spare.pid or 0, signum)

    async def kill(self, restart: bool = False) -> None:
        if self.spare is None:
            return await super().kill(restart)
        await self.send_signal(signal.SIGKILL)

    async def terminate(self, restart: bool = False) -> None:
        if self.spare is None:
            return await super().terminate(restart)
        await self.send_signal(signal.SIGTERM)

    async def cleanup(self, restart: bool = False) -> None:
        # the spare's own files are its spawner's, which removes them when the kernel has ended
        self.spare = None
        await super().cleanup(restart)

    async def get_provisioner_info(self) -> dict[str, Any]:
        info: dict[str, Any] = await super().get_provisioner_info()
        if self.spare is not None:
            info["spare"] = {"state": self.spare.state, "path": str(self.spare.path), "data": self.spare.data}
        return info

    async def load_provisioner_info(self, provisioner_info: dict[str, Any]) -> None:
        await super().load_provisioner_info(provisioner_info)
        spare = provisioner_info.get("spare")
        if spare:
            from pathlib import Path

            self.spare = Record(spare["state"], Path(spare["path"]), spare["data"])
