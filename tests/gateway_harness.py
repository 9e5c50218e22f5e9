"""Jupyter Kernel Gateway for the tests: starting a private gateway on 127.0.0.1 with a pool of prespawned kernels,
its REST API, its websocket channels (tornado's client), and stopping it with every process it started."""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from kernel_client import Cell
from ports import free_port

STARTUP_TIMEOUT = 180
SHUTDOWN_TIMEOUT = 60
CELL_TIMEOUT = 120


class Log:
    """The gateway's log (its output and its kernels'), read by a thread as it is written; waits for lines matching
    a pattern."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._ended = False
        self._thread = threading.Thread(target=self._read, args=(stream,), name="gateway-log", daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for raw in stream:
            with self._changed:
                self.lines.append(raw.decode("utf-8", errors="replace").rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._ended = True
            self._changed.notify_all()

    def matches(self, pattern: str) -> list[re.Match[str]]:
        with self._changed:
            return [m for line in self.lines if (m := re.search(pattern, line))]

    def wait_for(self, pattern: str, count: int = 1, timeout: float = STARTUP_TIMEOUT) -> list[re.Match[str]]:
        """The first ``count`` lines matching ``pattern``, once written; TimeoutError (with the log) otherwise."""
        with self._changed:
            found = self._changed.wait_for(lambda: len(self.matches(pattern)) >= count or self._ended, timeout)
            matches = self.matches(pattern)
        if not found or len(matches) < count:
            raise TimeoutError(f"the gateway's log has no {count} line(s) matching {pattern!r}:\n{self.tail()}")
        return matches[:count]

    def tail(self, lines: int = 40) -> str:
        with self._changed:
            return "\n".join(self.lines[-lines:])


@dataclass
class Gateway:
    """A running Kernel Gateway: its address, token, runtime folder (connection files) and log."""

    url: str
    token: str
    runtime_dir: Path
    process: subprocess.Popen[bytes]
    log: Log
    #: Every process the gateway started while it ran (kernels), found in its process tree.
    started: dict[int, psutil.Process] = field(default_factory=dict)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self.token}"}

    async def api(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        """``method /api/path`` with the token (or ``token``): the status and the decoded JSON body (None if empty)."""
        request = HTTPRequest(
            f"{self.url}/api/{path}",
            method=method,
            headers={"Authorization": f"token {self.token if token is None else token}"},
            body=None if body is None and method in ("GET", "DELETE") else json.dumps(body or {}),
            request_timeout=STARTUP_TIMEOUT,
        )
        try:
            response = await AsyncHTTPClient().fetch(request)
        except HTTPClientError as error:
            if error.response is None:
                raise
            response = error.response
        return response.code, json.loads(response.body) if response.body else None

    async def channels(self, kernel_id: str) -> KernelChannels:
        """A websocket connection to the kernel's channels."""
        url = self.url.replace("http://", "ws://", 1) + f"/api/kernels/{kernel_id}/channels"
        connection = await websocket_connect(HTTPRequest(url, headers=self.headers, request_timeout=60))
        return KernelChannels(connection)

    def kernel_process(self, kernel_id: str) -> psutil.Process:
        """The process of the kernel ``kernel_id`` (its connection file is named after its id)."""
        self.track()
        connection_file = str(self.runtime_dir / f"kernel-{kernel_id}.json")
        for process in self.started.values():
            try:
                if connection_file in process.cmdline():
                    return process
            except psutil.NoSuchProcess:
                continue
        raise LookupError(f"no process of kernel {kernel_id} among {self.started}")

    def track(self) -> None:
        """Adds the processes now in the gateway's tree to :attr:`started`."""
        try:
            for child in psutil.Process(self.process.pid).children(recursive=True):
                self.started.setdefault(child.pid, child)
        except psutil.NoSuchProcess:
            pass

    def stop(self) -> Stopped:
        """Stops the gateway as an operator does (SIGTERM: it shuts its kernels down), waits for it and for every
        process it started, and kills what is left after the bound (reported in the result)."""
        self.track()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        killed = []
        try:
            status = self.process.wait(timeout=SHUTDOWN_TIMEOUT)
        except subprocess.TimeoutExpired:
            killed.append(f"the gateway (pid {self.process.pid})")
            self.process.kill()
            status = self.process.wait(timeout=SHUTDOWN_TIMEOUT)
        _, alive = psutil.wait_procs(list(self.started.values()), timeout=SHUTDOWN_TIMEOUT)
        for process in alive:
            killed.append(f"pid {process.pid}: {_describe(process)}")
            process.kill()
        psutil.wait_procs(alive, timeout=SHUTDOWN_TIMEOUT)
        return Stopped(status, killed)


@dataclass(frozen=True)
class Stopped:
    status: int
    #: What was still running after the bound and had to be killed.
    killed: list[str]


def _describe(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())[:200]
    except psutil.Error:
        return "?"


def processes_mentioning(text: str) -> list[psutil.Process]:
    """The live processes whose command line contains ``text``."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if any(text in part for part in process.info["cmdline"] or []):
            found.append(process)
    return found


@contextmanager
def running_gateway(workdir: Path, arguments: list[str]) -> Iterator[Gateway]:
    """``jupyter kernelgateway`` on 127.0.0.1 (a free port, a random token), with its runtime folder in ``workdir``
    and these extra arguments; stopped at the end with everything it started."""
    runtime_dir = workdir / "runtime"
    runtime_dir.mkdir(parents=True)
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(runtime_dir))
    # A kernel making the class-data sharing archive starts that helper detached, on purpose outliving the kernel;
    # here it would be taken for a process the gateway left behind (the archive has its own tests).
    env["KOTLIN_LLM_CDS"] = "0"
    command = [
        sys.executable,
        "-m",
        "kernel_gateway",
        "--KernelGatewayApp.ip=127.0.0.1",
        f"--KernelGatewayApp.port={port}",
        "--KernelGatewayApp.port_retries=0",
        f"--KernelGatewayApp.auth_token={token}",
        *arguments,
    ]
    process = subprocess.Popen(
        command, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    gateway = Gateway(f"http://127.0.0.1:{port}", token, runtime_dir, process, Log(process.stdout))
    try:
        gateway.log.wait_for(rf"is available at http://127\.0\.0\.1:{port}")
        yield gateway
    finally:
        gateway.stop()


def message(msg_type: str, content: dict[str, Any], channel: str = "shell") -> dict[str, Any]:
    """A Jupyter message as the gateway's websocket carries it (JSON, with its channel)."""
    header = {
        "msg_id": uuid.uuid4().hex,
        "msg_type": msg_type,
        "username": "test",
        "session": "gateway-test",
        "date": "",
        "version": "5.3",
    }
    return {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": channel}


class KernelChannels:
    """One kernel's shell, iopub and control channels over one websocket."""

    def __init__(self, connection: WebSocketClientConnection) -> None:
        self._connection = connection

    async def send(self, msg_type: str, content: dict[str, Any], channel: str = "shell") -> str:
        msg = message(msg_type, content, channel)
        await self._connection.write_message(json.dumps(msg))
        return str(msg["header"]["msg_id"])

    async def submit(self, code: str) -> str:
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {}}
        return await self.send("execute_request", content | {"allow_stdin": False, "stop_on_error": True})

    async def _next(self) -> dict[str, Any]:
        raw = await self._connection.read_message()
        if raw is None:
            raise ConnectionError("the gateway closed the websocket")
        assert isinstance(raw, str), "a message without buffers comes as JSON text"
        msg: dict[str, Any] = json.loads(raw)
        return msg

    async def read_until(self, msg_id: str, printed: str, timeout: float = CELL_TIMEOUT) -> list[dict[str, Any]]:
        """The iopub messages of ``msg_id`` up to the stream message in which ``printed`` appears."""

        async def read() -> list[dict[str, Any]]:
            seen: list[dict[str, Any]] = []
            text = ""
            while printed not in text:
                msg = await self._next()
                if msg["parent_header"].get("msg_id") != msg_id or msg["channel"] != "iopub":
                    continue
                if msg["msg_type"] not in ("status", "execute_input"):
                    seen.append(msg)
                if msg["msg_type"] == "stream":
                    text += msg["content"]["text"]
            return seen

        return await asyncio.wait_for(read(), timeout)

    async def collect(
        self, msg_id: str, timeout: float = CELL_TIMEOUT, seen: list[dict[str, Any]] | None = None
    ) -> Cell:
        """The cell of ``msg_id`` once both its reply and its idle status came (in either order)."""

        async def read() -> Cell:
            messages = list(seen or [])
            reply: dict[str, Any] | None = None
            idle = False
            while reply is None or not idle:
                msg = await self._next()
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                if msg["channel"] == "shell":
                    reply = msg
                elif msg["msg_type"] == "status":
                    idle = idle or msg["content"]["execution_state"] == "idle"
                elif msg["channel"] == "iopub" and msg["msg_type"] != "execute_input":
                    messages.append(msg)
            return Cell(reply=reply, messages=messages)

        return await asyncio.wait_for(read(), timeout)

    async def execute(self, code: str, timeout: float = CELL_TIMEOUT) -> Cell:
        return await self.collect(await self.submit(code), timeout)

    def close(self) -> None:
        self._connection.close()
