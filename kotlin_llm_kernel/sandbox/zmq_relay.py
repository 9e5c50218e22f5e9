"""The bridge between a Jupyter client outside the sandbox and the kernel inside it: the client's five TCP ports are
served here, and each connection a client opens is joined to the kernel's ipc socket for that port (``<dir>/k-<port>``
in the run directory bound into the sandbox) and copied both ways, byte for byte.

ZMQ's wire protocol (ZMTP) is the same stream over ``tcp://`` and ``ipc://``, so nothing here parses a message:
identities, the stdin channel's routing, iopub subscriptions and heartbeats pass through as over a direct TCP
connection. A Unix socket in a bound directory crosses network namespaces, which is what lets a kernel with no
network of its own serve a client on the host."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from .streams import pipe

_log = logging.getLogger(__name__)
#: How often a connection tries the kernel's socket again while the kernel has not bound it yet.
RETRY_INTERVAL = 0.05
#: How much one read copies at most.
CHUNK = 256 * 1024


def ipc_path(run_dir: Path, port: int) -> Path:
    """The kernel's socket for ``port``: ipykernel binds ``ipc://<ip>-<port>``, and the inner connection file's ip
    is ``<dir>/k``."""
    return run_dir / f"k-{port}"


class ZmqRelay:
    """Serves ``ports`` on ``host`` and relays each connection to its ipc socket in ``run_dir``."""

    def __init__(self, ports: Sequence[int], run_dir: Path, host: str = "127.0.0.1") -> None:
        self.ports = list(ports)
        self.run_dir = run_dir
        self.host = host
        self._servers: list[asyncio.Server] = []
        self._connections: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Listens on every port (an ``OSError`` when one is taken, with none left listening)."""
        try:
            for port in self.ports:
                self._servers.append(await asyncio.start_server(self._accepted(port), self.host, port))
        except OSError:
            await self.close()
            raise

    async def close(self) -> None:
        """Stops listening and closes every relayed connection."""
        for server in self._servers:
            server.close()
        self._servers.clear()
        tasks = list(self._connections)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _accepted(self, port: int) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]:
        async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            task = asyncio.current_task()
            assert task is not None
            self._connections.add(task)
            try:
                await self._relay(port, reader, writer)
            except asyncio.CancelledError:
                pass  # closed by :meth:`close`; asyncio would log a cancelled connection as an error
            except OSError as error:  # the kernel's socket cannot be reached: this connection ends, others go on
                _log.warning("relay of port %d: %s", port, error)
            finally:
                self._connections.discard(task)

        return accepted

    async def _relay(self, port: int, client_in: asyncio.StreamReader, client_out: asyncio.StreamWriter) -> None:
        kernel_out: asyncio.StreamWriter | None = None
        try:
            kernel_in, kernel_out = await self._connect(ipc_path(self.run_dir, port))
            copies = [
                asyncio.ensure_future(pipe(client_in, kernel_out, CHUNK)),
                asyncio.ensure_future(pipe(kernel_in, client_out, CHUNK)),
            ]
            try:
                # ZMTP never half-closes: the first side to end ends the connection
                await asyncio.wait(copies, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for copy in copies:
                    copy.cancel()
                await asyncio.gather(*copies, return_exceptions=True)
        finally:
            for writer in (kernel_out, client_out):
                if writer is not None:
                    await _close(writer)

    @staticmethod
    async def _connect(path: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """The kernel's socket at ``path``, tried until the kernel has bound it."""
        while True:
            try:
                return await asyncio.open_unix_connection(str(path))
            except (FileNotFoundError, ConnectionRefusedError):
                await asyncio.sleep(RETRY_INTERVAL)


async def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()
