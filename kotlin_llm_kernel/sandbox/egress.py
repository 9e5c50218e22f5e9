"""The network of ``--network maven``: an allowlisting HTTP proxy outside the sandbox, on a Unix socket bound inside
(where :mod:`.inside` relays ``127.0.0.1:3128`` to it), and the settings that send both of the engine's HTTP clients
through it (Maven's settings.xml ``<proxies>`` for maven-resolver; the JDK's net.properties for its HttpClient, which
adds no JVM option and prints nothing).

The proxy lets through ``CONNECT host:port`` to the session's https repositories and ``GET``/``HEAD`` of absolute
``http://`` URLs to its http ones (Maven Central always), and answers 403 with a text saying what the sandbox allows
and how to widen it to anything else. A repository on the host's loopback is reached under the name
:data:`LOOPBACK_ALIAS` (inside, 127.0.0.1 is the sandbox's own loopback)."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from .layout import RELAY_HOST, RELAY_PORT
from .streams import pipe

log = logging.getLogger(__name__)

MAVEN_CENTRAL = ("https://repo.maven.apache.org/maven2/", "https://repo1.maven.org/maven2/")
#: The name inside for the host's loopback (a repository on 127.0.0.1 / localhost): the proxy maps it back.
LOOPBACK_ALIAS = "host-loopback.sandbox.invalid"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")
#: Seconds the proxy waits for a request's head and for a connection to a repository.
HEAD_TIMEOUT = 30.0
CONNECT_TIMEOUT = 30.0
MAX_HEAD = 64 * 1024
#: Headers of the client's request not passed on to a repository (hop-by-hop, or for the proxy).
_DROPPED = ("proxy-connection", "proxy-authorization", "connection", "keep-alive")


def _port(scheme: str, port: int | None) -> int:
    return port if port is not None else 443 if scheme == "https" else 80


def inside_url(url: str) -> str:
    """``url`` as the code inside reaches it: a host on the host's loopback is named :data:`LOOPBACK_ALIAS`."""
    parts = urlsplit(url)
    if parts.hostname not in LOOPBACK_NAMES:
        return url
    netloc = LOOPBACK_ALIAS if parts.port is None else f"{LOOPBACK_ALIAS}:{parts.port}"
    return urlunsplit(parts._replace(netloc=netloc))


@dataclass(frozen=True)
class Decision:
    """Whether a request passes; where it then connects (``host``, ``port``) or, when not, why."""

    allowed: bool
    host: str
    port: int
    reason: str = ""


@dataclass(frozen=True)
class Rules:
    """What the proxy lets through: ``connect`` (CONNECT, TLS) and ``fetch`` (GET/HEAD of http URLs) ``host:port``
    pairs, as the code inside names them; ``aliases`` maps such names to the host connected to."""

    connect: frozenset[tuple[str, int]]
    fetch: frozenset[tuple[str, int]]
    aliases: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def for_repositories(cls, repositories: Iterable[str] = (), allowed_hosts: Iterable[str] = ()) -> Rules:
        connect: set[tuple[str, int]] = set()
        fetch: set[tuple[str, int]] = set()
        for url in (*MAVEN_CENTRAL, *repositories):
            parts = urlsplit(inside_url(url))
            if parts.hostname is None or parts.scheme not in ("http", "https"):
                continue
            target = (parts.hostname.lower(), _port(parts.scheme, parts.port))
            (connect if parts.scheme == "https" else fetch).add(target)
        for pair in allowed_hosts:
            name, _, port = pair.rpartition(":")
            connect.add((name.lower(), int(port)))
            fetch.add((name.lower(), int(port)))
        return cls(frozenset(connect), frozenset(fetch), {LOOPBACK_ALIAS: "127.0.0.1"})

    def allowed(self) -> list[str]:
        named = {f"https://{host}:{port}" for host, port in self.connect}
        named |= {f"http://{host}:{port}" for host, port in self.fetch}
        return sorted(named)

    def decide(self, method: str, target: str) -> Decision:
        """The decision on a request ``method target`` (CONNECT ``host:port``, or an absolute http URL)."""
        method = method.upper()
        if method == "CONNECT":
            name, _, port_text = target.rpartition(":")
            name = name.strip("[]").lower()
            port = int(port_text) if port_text.isdigit() else 0
            allowed = (name, port) in self.connect
        elif method in ("GET", "HEAD"):
            parts = urlsplit(target)
            if parts.scheme != "http" or parts.hostname is None:
                return Decision(False, target, 0, self._denied(f"{method} {target}"))
            try:
                name, port = parts.hostname.lower(), _port("http", parts.port)
            except ValueError:
                return Decision(False, target, 0, self._denied(f"{method} {target}"))
            allowed = (name, port) in self.fetch
        else:
            return Decision(False, target, 0, self._denied(f"{method} {target}"))
        if not allowed:
            return Decision(False, name, port, self._denied(f"{name}:{port}"))
        return Decision(True, self.aliases.get(name, name), port)

    def _denied(self, what: str) -> str:
        return (
            f"Not allowed by the sandbox: {what}. The sandbox's network reaches only the session's Maven "
            f"repositories ({', '.join(self.allowed())}); to use another repository, configure it for the session "
            "(kotlin-llm-mcp --repository URL), or start the session with --network all, which opens the network "
            "entirely."
        )


def maven_settings() -> str:
    """settings.xml inside: maven-resolver's http and https through the relay."""
    proxies = "".join(
        f"    <proxy><id>sandbox-{protocol}</id><active>true</active><protocol>{protocol}</protocol>"
        f"<host>{RELAY_HOST}</host><port>{RELAY_PORT}</port></proxy>\n"
        for protocol in ("http", "https")
    )
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<settings>\n  <proxies>\n{proxies}  </proxies>\n</settings>\n'


def net_properties(original: str) -> str:
    """The JDK's net.properties with the relay as its http and https proxy (read by the default ProxySelector)."""
    lines = [line for line in original.splitlines() if not line.startswith(("http.proxy", "https.proxy"))]
    lines += [f"{scheme}.{key}={value}" for scheme in ("http", "https") for key, value in _proxy_keys()]
    return "\n".join(lines) + "\n"


def _proxy_keys() -> list[tuple[str, str]]:
    return [("proxyHost", RELAY_HOST), ("proxyPort", str(RELAY_PORT))]


def _response(status: str, text: str) -> bytes:
    body = (text + "\n").encode()
    head = f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
    return (head + "Connection: close\r\n\r\n").encode() + body


def _origin_request(method: str, target: str, headers: list[str]) -> bytes:
    parts = urlsplit(target)
    path = urlunsplit(("", "", parts.path or "/", parts.query, ""))
    kept = [line for line in headers if line.split(":", 1)[0].strip().lower() not in _DROPPED]
    return "\r\n".join([f"{method} {path} HTTP/1.1", *kept, "Connection: close", "", ""]).encode("latin-1")


class EgressProxy:
    """The proxy serving one sandbox, on its own thread and event loop; ``decisions`` lists each one
    (``allow CONNECT repo.maven.apache.org:443``...)."""

    def __init__(self, socket_path: Path, rules: Rules) -> None:
        self.socket_path = socket_path
        self.rules = rules
        self.decisions: list[str] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="sandbox-egress", daemon=True)
        self._ready = threading.Event()
        self._failed: OSError | None = None
        self._stop: asyncio.Event | None = None

    def start(self) -> None:
        self._thread.start()
        self._ready.wait()
        if self._failed is not None:
            raise self._failed

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._serve())
        finally:
            self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        try:
            server = await asyncio.start_unix_server(self._handle, path=str(self.socket_path))
        except OSError as error:
            self._failed = error
            self._ready.set()
            return
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_TIMEOUT)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, OSError):
            writer.close()
            return
        lines = head.decode("latin-1").split("\r\n")
        method, _, rest = lines[0].partition(" ")
        target = rest.rpartition(" ")[0] or rest
        decision = self.rules.decide(method, target)
        self._note(("allow " if decision.allowed else "deny ") + f"{method} {target}")
        if not decision.allowed:
            writer.write(_response("403 Forbidden", decision.reason))
            await _drained(writer)
            return
        try:
            upstream = await asyncio.wait_for(asyncio.open_connection(decision.host, decision.port), CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as error:
            said = f"The sandbox's proxy could not reach {decision.host}:{decision.port}: {error}"
            writer.write(_response("502 Bad Gateway", said))
            await _drained(writer)
            return
        upstream_reader, upstream_writer = upstream
        if method.upper() == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            upstream_writer.write(_origin_request(method.upper(), target, [line for line in lines[1:] if line]))
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    def _note(self, decision: str) -> None:
        self.decisions.append(decision)
        log.info("sandbox egress: %s", decision)

    def close(self) -> None:
        if self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=10)
        try:
            os.unlink(self.socket_path)
        except OSError:
            pass


async def _drained(writer: asyncio.StreamWriter) -> None:
    try:
        await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()
