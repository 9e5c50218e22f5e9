"""The launcher protocol of gateway_provisioners and Jupyter Enterprise Gateway, from the kernel's side.

A remote provisioner (Kubernetes, Docker, YARN, SSH hosts) starts the kernel far away and learns where it listens
from the kernel: it passes ``--kernel-id``, ``--response-address HOST:PORT``, ``--public-key`` (an RSA key, base64 DER)
and ``--port-range``. The kernel picks its five ports and a sixth, the communication port, then connects to the
response address and sends its connection info (plus ``pid``, ``pgid``, ``comm_port`` and ``kernel_id``) as payload
version 1: base64 of a JSON object whose ``conn_info`` is the connection info encrypted with a fresh AES key (ECB,
PKCS#7 padding) and whose ``key`` is that AES key encrypted with the public key (PKCS#1 v1.5). The provisioner
later connects to the communication port to send one JSON object per connection: ``{"signum": N}`` (0 only asks
whether the kernel lives; 2 interrupts) or ``{"shutdown": 1}``, after which nothing listens there any more.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import random
import signal
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

#: The version of the payload the provisioners decode (theirs: ``LAUNCHER_VERSION``).
PAYLOAD_VERSION = 1
#: The provisioners refuse smaller ranges; the same bound keeps a typo (``9000..9010``) from failing late.
MIN_PORT_RANGE_SIZE = 1000
#: Attempts at a free port of the range before giving up.
PORT_ATTEMPTS = 50
#: Seconds to reach the response address, and to read one request on the communication port.
CONNECT_TIMEOUT = 30.0
REQUEST_TIMEOUT = 5.0
#: The policies of ``--transport-encryption`` that ask for CurveZMQ keys in the connection info.
CURVE_POLICIES = ("auto", "required")


class LauncherError(ValueError):
    """A launcher argument the kernel cannot work with; the message names the argument."""


@dataclass(frozen=True)
class PortRange:
    lower: int
    upper: int

    @property
    def any_port(self) -> bool:
        return self.lower == self.upper == 0


def parse_port_range(text: str | None) -> PortRange:
    """``LOWER..UPPER`` (``0..0``, empty, or an unfilled ``{port_range}``: any port)."""
    if not text or text.strip() in ("", "{port_range}"):
        return PortRange(0, 0)
    lower_text, dots, upper_text = text.strip().partition("..")
    if not dots or not lower_text.isdigit() or not upper_text.isdigit():
        raise LauncherError(f"--port-range {text!r} is not LOWER..UPPER (e.g. 40000..41000, or 0..0 for any port)")
    ports = PortRange(int(lower_text), int(upper_text))
    if ports.any_port or ports.lower == ports.upper:
        return PortRange(0, 0)
    if not 1024 <= ports.lower < ports.upper <= 65535:
        raise LauncherError(f"--port-range {text!r}: the ports must rise within 1024..65535")
    if ports.upper - ports.lower < MIN_PORT_RANGE_SIZE:
        raise LauncherError(f"--port-range {text!r} holds fewer than {MIN_PORT_RANGE_SIZE} ports")
    return ports


def parse_address(text: str | None) -> tuple[str, int]:
    """The host and port of ``--response-address HOST:PORT``."""
    host, colon, port = (text or "").strip().rpartition(":")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise LauncherError(f"--response-address {text!r} is not HOST:PORT")
    return host, int(port)


def curve_policy(text: str | None) -> str | None:
    """``auto`` or ``required`` when the provisioner asks for CurveZMQ keys; None otherwise (empty, ``disabled``,
    an unfilled ``{transport_encryption}``)."""
    policy = (text or "").strip().lower()
    if policy in CURVE_POLICIES:
        return policy
    if policy and policy != "disabled" and not (policy.startswith("{") and policy.endswith("}")):
        raise LauncherError(f"--transport-encryption {text!r} is not one of auto, required, disabled")
    return None


def bind_in_range(ip: str, ports: PortRange) -> socket.socket:
    """A TCP socket bound on ``ip`` to a free port of ``ports`` (any free port for ``0..0``)."""
    for _ in range(1 if ports.any_port else PORT_ATTEMPTS):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((ip, 0 if ports.any_port else random.randint(ports.lower, ports.upper)))
            return sock
        except OSError:
            sock.close()
            if ports.any_port:
                raise
    raise LauncherError(f"--port-range {ports.lower}..{ports.upper}: no free port found on {ip}")


def choose_ports(ip: str, ports: PortRange, count: int) -> list[int]:
    """``count`` distinct free ports (all held until every one is found, so none repeats)."""
    held = [bind_in_range(ip, ports) for _ in range(count)]
    try:
        return [sock.getsockname()[1] for sock in held]
    finally:
        for sock in held:
            sock.close()


def encrypt_payload(connection_info: Mapping[str, Any], public_key: str) -> bytes:
    """Payload version 1 of ``connection_info`` for the holder of ``public_key``'s private key."""
    from Cryptodome.Cipher import AES, PKCS1_v1_5
    from Cryptodome.PublicKey import RSA
    from Cryptodome.Random import get_random_bytes
    from Cryptodome.Util.Padding import pad

    try:
        rsa_key = RSA.import_key(base64.b64decode(public_key, validate=True))
    except (ValueError, IndexError, TypeError) as error:
        raise LauncherError(f"--public-key is not a base64 RSA public key: {error}") from error
    aes_key = get_random_bytes(16)
    info = json.dumps(dict(connection_info)).encode("utf-8")
    # ECB and PKCS#1 v1.5: what the provisioners decrypt; the AES key is fresh for each payload
    sealed_info = AES.new(aes_key, AES.MODE_ECB).encrypt(pad(info, 16))
    sealed_key = PKCS1_v1_5.new(rsa_key).encrypt(aes_key)
    payload = {
        "version": PAYLOAD_VERSION,
        "key": base64.b64encode(sealed_key).decode("ascii"),
        "conn_info": base64.b64encode(sealed_info).decode("ascii"),
    }
    return base64.b64encode(json.dumps(payload).encode("utf-8"))


def send_payload(address: tuple[str, int], payload: bytes, timeout: float = CONNECT_TIMEOUT) -> None:
    """Sends ``payload`` to the response address; the end of the connection ends it."""
    with socket.create_connection(address, timeout=timeout) as sock:
        sock.sendall(payload)
        sock.shutdown(socket.SHUT_WR)


class CommListener:
    """The communication port: serves the provisioner's requests on a daemon thread until ``{"shutdown": 1}``.

    A signal is sent to this process, so it takes the path a local kernel's signal takes (SIGINT interrupts the
    running cell). Until ``ready`` is set, SIGINT is dropped: before the kernel installs its handler it would end
    the start-up instead of interrupting a cell.
    """

    def __init__(self, sock: socket.socket, send_signal: Callable[[int], None] | None = None) -> None:
        self._sock = sock
        self._sock.listen(8)
        self._send_signal = send_signal or (lambda signum: os.kill(os.getpid(), signum))
        self.ready = threading.Event()
        #: Set once nothing listens on the port any more.
        self.stopped = threading.Event()
        self._shutdown = False
        self._thread = threading.Thread(target=self._serve, name="kotlin-llm-comm-port", daemon=True)

    @property
    def port(self) -> int:
        return int(self._sock.getsockname()[1])

    def start(self) -> None:
        self._thread.start()

    def _serve(self) -> None:
        try:
            while not self._shutdown:
                try:
                    connection, _ = self._sock.accept()
                except OSError:
                    break
                with connection:
                    self._handle(connection)
        finally:
            self._sock.close()
            self.stopped.set()

    def _handle(self, connection: socket.socket) -> None:
        connection.settimeout(REQUEST_TIMEOUT)
        chunks: list[bytes] = []
        try:
            while chunk := connection.recv(4096):
                chunks.append(chunk)
        except OSError as error:
            log.warning("communication port: request not read: %s", error)
            return
        if not chunks:  # a bare connection: whether the port is open
            return
        try:
            request = json.loads(b"".join(chunks).decode("utf-8"))
            if not isinstance(request, dict):
                raise ValueError("not a JSON object")
            signum = int(request.get("signum") or 0)
        except (ValueError, TypeError) as error:
            log.warning("communication port: request ignored (%s): %r", error, b"".join(chunks)[:200])
            return
        if signum:
            self._deliver(signum)
        if request.get("shutdown"):
            log.info("communication port: shutdown requested; closing it")
            self._shutdown = True

    def _deliver(self, signum: int) -> None:
        if signum == signal.SIGINT and not self.ready.is_set():
            log.info("communication port: interrupt before the kernel is ready: nothing to interrupt")
            return
        log.info("communication port: signal %s", signum)
        try:
            self._send_signal(signum)
        except (OSError, ValueError) as error:
            log.warning("communication port: signal %s not sent: %s", signum, error)
