"""A Jupyter Kernel Gateway for the benchmark: started on 127.0.0.1 (a free port, a random token), its REST API and a
kernel's websocket channels (tornado's client), its kernels' processes, and stopping it with all of them."""

from __future__ import annotations

import json
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from environment import free_port

SHUTDOWN_TIMEOUT = 60.0


@dataclass
class Gateway:
    url: str
    token: str
    runtime_dir: Path
    process: subprocess.Popen[bytes]
    log: Path

    async def api(self, method: str, path: str, body: Any = None, timeout: float = 300.0) -> tuple[int, Any]:
        request = HTTPRequest(
            f"{self.url}/api/{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
            body=None if method in ("GET", "DELETE") else json.dumps(body or {}),
            request_timeout=timeout,
        )
        try:
            response = await AsyncHTTPClient().fetch(request)
        except HTTPClientError as error:
            if error.response is None:
                raise
            response = error.response
        return response.code, json.loads(response.body) if response.body else None

    async def channels(self, kernel_id: str) -> Channels:
        url = self.url.replace("http://", "ws://", 1) + f"/api/kernels/{kernel_id}/channels"
        headers = {"Authorization": f"token {self.token}"}
        return Channels(await websocket_connect(HTTPRequest(url, headers=headers, request_timeout=60)))

    def kernel_processes(self) -> dict[str, psutil.Process]:
        """The gateway's kernels by id (a kernel's connection file, in its command line, is named after its id)."""
        found: dict[str, psutil.Process] = {}
        try:
            children = psutil.Process(self.process.pid).children()
        except psutil.NoSuchProcess:
            return found
        for child in children:
            try:
                for part in child.cmdline():
                    name = Path(part).name
                    if part.startswith(str(self.runtime_dir)) and name.startswith("kernel-"):
                        found[name.removeprefix("kernel-").removesuffix(".json")] = child
            except psutil.NoSuchProcess:
                continue
        return found

    def log_tail(self, lines: int = 30) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> list[int]:
        """SIGTERM (the gateway shuts its kernels down), then kills whatever of its tree is left; their pids."""
        try:
            tree = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            tree = []
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=SHUTDOWN_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=SHUTDOWN_TIMEOUT)
        _, alive = psutil.wait_procs(tree, timeout=SHUTDOWN_TIMEOUT)
        for process in alive:
            process.kill()
        return [p.pid for p in alive]


def start_gateway(
    work: Path, name: str, arguments: Sequence[str], env: Mapping[str, str], timeout: float = 120.0
) -> Gateway:
    """``jupyter kernelgateway`` with ``arguments``, its runtime folder and log in ``work``; returns once it listens.

    The gateway has no readiness event a client could wait on before it listens, so its port is polled.
    """
    runtime_dir = work / f"runtime-{name}"
    runtime_dir.mkdir(parents=True, exist_ok=True)
    log = work / "logs" / f"gateway-{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    port, token = free_port(), secrets.token_hex(16)
    command = [
        sys.executable,
        "-m",
        "kernel_gateway",
        "--KernelGatewayApp.ip=127.0.0.1",
        f"--KernelGatewayApp.port={port}",
        "--KernelGatewayApp.port_retries=0",
        f"--KernelGatewayApp.auth_token={token}",
        "--JupyterWebsocketPersonality.list_kernels=True",
        *arguments,
    ]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command,
            cwd=work,
            env={**env, "JUPYTER_RUNTIME_DIR": str(runtime_dir)},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    gateway = Gateway(f"http://127.0.0.1:{port}", token, runtime_dir, process, log)
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the gateway exited with {process.returncode}:\n{gateway.log_tail()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return gateway
        except OSError:
            if time.monotonic() > deadline:
                gateway.stop()
                raise TimeoutError(f"the gateway did not listen within {timeout} s:\n{gateway.log_tail()}") from None
            time.sleep(0.1)


def message(msg_type: str, content: dict[str, Any]) -> dict[str, Any]:
    header = {
        "msg_id": uuid.uuid4().hex,
        "msg_type": msg_type,
        "username": "bench",
        "session": "bench-pool",
        "date": "",
        "version": "5.3",
    }
    return {"header": header, "parent_header": {}, "metadata": {}, "content": content, "channel": "shell"}


@dataclass(frozen=True)
class Result:
    """A cell: when its first result arrived, when its reply did (time.monotonic()), its text, status and number."""

    first_result: float | None
    reply: float
    text: str | None
    status: str
    execution_count: int


class Channels:
    def __init__(self, connection: WebSocketClientConnection) -> None:
        self._connection = connection

    async def execute(self, code: str) -> Result:
        """Runs ``code``; returns once both its reply and its idle status came."""
        request = message(
            "execute_request",
            {"code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False},
        )
        msg_id = request["header"]["msg_id"]
        await self._connection.write_message(json.dumps(request))
        first: float | None = None
        text: str | None = None
        reply: tuple[float, str, int] | None = None
        idle = False
        while reply is None or not idle:
            raw = await self._connection.read_message()
            if raw is None:
                raise ConnectionError("the gateway closed the websocket")
            now = time.monotonic()
            msg = json.loads(raw)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["channel"] == "shell":
                reply = (now, msg["content"]["status"], msg["content"].get("execution_count", 0))
            elif msg["msg_type"] == "execute_result" and first is None:
                first, text = now, msg["content"]["data"].get("text/plain")
            elif msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                idle = True
        return Result(first, reply[0], text, reply[1], reply[2])

    def close(self) -> None:
        self._connection.close()


def smaps_rollup(pid: int) -> dict[str, int]:
    """The fields of /proc/PID/smaps_rollup in bytes (Rss, Pss, Shared_Clean, Private_Dirty, …)."""
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="utf-8").splitlines()[1:]:
        name, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) == 2 and parts[1] == "kB":
            fields[name.strip()] = int(parts[0]) * 1024
    return fields


def mapped_files(pid: int, suffixes: Sequence[str]) -> set[str]:
    """The files ending in one of ``suffixes`` that the process maps (/proc/PID/maps)."""
    found = set()
    for line in Path(f"/proc/{pid}/maps").read_text(encoding="utf-8").splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5].endswith(tuple(suffixes)):
            found.add(parts[5])
    return found


def settle(process: psutil.Process, quiet_percent: float = 10.0, bound: float = 120.0) -> float:
    """Waits until the process uses less than ``quiet_percent`` of a core over two 0.5 s windows in a row (its
    background warm-up is over), at most ``bound`` seconds; returns how long it waited."""
    began = time.monotonic()
    quiet = 0
    process.cpu_percent(None)
    while quiet < 2 and time.monotonic() - began < bound:
        time.sleep(0.5)
        quiet = quiet + 1 if process.cpu_percent(None) < quiet_percent else 0
    return time.monotonic() - began
