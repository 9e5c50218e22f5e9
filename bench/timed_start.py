"""A fresh kernel started and timed to its first result (bench/remote_launch.py, bench/sandbox.py): ``start_kernel()``
→ its return, and → the ``execute_reply`` of a first ``1 + 1`` (its result checked); the caller may run more cells on
it, then it is shut down and its processes waited for (killed after a minute)."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import psutil


@dataclass
class Started:
    """A kernel started by :func:`started_kernel`: seconds from ``start_kernel()`` to its return (``returned``) and
    to the first result (``first``)."""

    name: str
    client: Any  # jupyter_client's AsyncKernelClient
    timeout: float
    returned: float
    first: float = 0.0

    async def run(self, code: str) -> str:
        """Runs ``code`` as a cell: its one result as text (anything else, or an error, raises)."""
        shown: list[str] = []

        def output(msg: dict[str, Any]) -> None:
            if msg["msg_type"] == "execute_result":
                shown.append(msg["content"]["data"]["text/plain"])

        reply = await self.client.execute_interactive(code, output_hook=output, timeout=self.timeout)
        if reply["content"]["status"] != "ok" or len(shown) != 1:
            raise RuntimeError(f"{self.name}: {code} gave {reply['content']} {shown}")
        return shown[0]


@asynccontextmanager
async def started_kernel(kernel_name: str, env: dict[str, str], timeout: float) -> AsyncIterator[Started]:
    """Starts kernel ``kernel_name`` with this process's environment and ``env``, and yields it once its first
    ``1 + 1`` gave 2."""
    from jupyter_client.manager import AsyncKernelManager

    km = AsyncKernelManager(kernel_name=kernel_name)
    began = time.monotonic()
    await km.start_kernel(env=os.environ | env)
    kernel = Started(kernel_name, km.client(), timeout, time.monotonic() - began)
    # jupyter_client's local provisioner keeps its process; gateway_provisioners' names the pid it launched
    provisioner: Any = km.provisioner
    pid = provisioner.local_proc.pid if hasattr(provisioner, "local_proc") else provisioner.pid
    root = psutil.Process(pid)
    kernel.client.start_channels()
    try:
        await kernel.client.wait_for_ready(timeout=timeout)
        if await kernel.run("1 + 1") != "2":
            raise RuntimeError(f"{kernel_name}: 1 + 1 is not 2")
        kernel.first = time.monotonic() - began
        yield kernel
    finally:
        processes = [root, *root.children(recursive=True)]
        kernel.client.stop_channels()
        await km.shutdown_kernel(now=False)
        _, alive = psutil.wait_procs(processes, timeout=60)
        for process in alive:
            process.kill()


def median_text(values: Sequence[float], unit: str = "s", scale: float = 1.0, digits: int = 2) -> str:
    """``values`` (times ``scale``) as "median unit [min–max]"."""
    scaled = [value * scale for value in values]
    return f"{statistics.median(scaled):.{digits}f} {unit} [{min(scaled):.{digits}f}–{max(scaled):.{digits}f}]"
