"""The egress proxy's decisions and settings, and the proxy itself on a Unix socket in front of a server on
127.0.0.1."""

from __future__ import annotations

import http.server
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from kotlin_llm_kernel.sandbox.egress import (
    LOOPBACK_ALIAS,
    EgressProxy,
    Rules,
    inside_url,
    maven_settings,
    net_properties,
)

RULES = Rules.for_repositories(["http://127.0.0.1:8081/repo/", "https://maven.example.org/releases/"], ["x.test:9"])


def test_maven_central_and_the_sessions_repositories_pass() -> None:
    assert RULES.decide("CONNECT", "repo.maven.apache.org:443").allowed
    assert RULES.decide("CONNECT", "repo1.maven.org:443").allowed
    assert RULES.decide("CONNECT", "maven.example.org:443").allowed
    assert RULES.decide("CONNECT", "x.test:9").allowed
    decision = RULES.decide("GET", f"http://{LOOPBACK_ALIAS}:8081/repo/a/b.pom")
    assert (decision.allowed, decision.host, decision.port) == (True, "127.0.0.1", 8081)
    assert RULES.decide("HEAD", f"http://{LOOPBACK_ALIAS}:8081/repo/a/b.jar").allowed


def test_everything_else_is_refused_saying_what_the_sandbox_allows() -> None:
    refused = [
        ("CONNECT", "example.com:443"),
        ("CONNECT", "repo.maven.apache.org:22"),
        ("CONNECT", "127.0.0.1:8081"),
        ("GET", "http://127.0.0.1:8081/repo/"),
        ("GET", f"http://{LOOPBACK_ALIAS}:22/"),
        ("GET", "https://repo.maven.apache.org/maven2/"),
        ("POST", f"http://{LOOPBACK_ALIAS}:8081/repo/"),
        ("GET", "/relative"),
    ]
    for method, target in refused:
        assert not RULES.decide(method, target).allowed, (method, target)
    assert RULES.decide("CONNECT", "example.com:443").reason == (
        "Not allowed by the sandbox: example.com:443. The sandbox's network reaches only the session's Maven "
        f"repositories (http://{LOOPBACK_ALIAS}:8081, http://x.test:9, https://maven.example.org:443, "
        "https://repo.maven.apache.org:443, https://repo1.maven.org:443, https://x.test:9); to use another repository, "
        "configure it for the session (kotlin-llm-mcp --repository URL), or start the session with --network all, "
        "which opens the network entirely."
    )


def test_a_loopback_repository_is_named_by_its_alias_inside() -> None:
    assert inside_url("http://127.0.0.1:8081/repo/") == f"http://{LOOPBACK_ALIAS}:8081/repo/"
    assert inside_url("http://localhost/repo/") == f"http://{LOOPBACK_ALIAS}/repo/"
    assert inside_url("https://maven.example.org/x/") == "https://maven.example.org/x/"


def test_both_http_clients_are_sent_to_the_relay() -> None:
    settings = maven_settings()
    assert "<protocol>https</protocol><host>127.0.0.1</host><port>3128</port>" in settings
    assert "<protocol>http</protocol><host>127.0.0.1</host><port>3128</port>" in settings
    lines = net_properties("java.net.useSystemProxies=false\nhttp.proxyHost=old\n").splitlines()
    assert lines == [
        "java.net.useSystemProxies=false",
        "http.proxyHost=127.0.0.1",
        "http.proxyPort=3128",
        "https.proxyHost=127.0.0.1",
        "https.proxyPort=3128",
    ]


@pytest.fixture
def origin() -> Iterator[int]:
    """An http server on 127.0.0.1 answering every GET with its path."""

    class Echo(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = f"{self.path} {self.headers['Host']}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def ask(path: Path, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX) as client:
        client.settimeout(10)
        client.connect(str(path))
        client.sendall(request)
        answer = b""
        while data := client.recv(65536):
            answer += data
        return answer


def test_the_proxy_passes_an_allowed_get_and_refuses_the_rest(origin: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        proxy = EgressProxy(Path(directory) / "egress.sock", Rules.for_repositories([f"http://127.0.0.1:{origin}/"]))
        proxy.start()
        try:
            url = f"http://{LOOPBACK_ALIAS}:{origin}/a/b.pom?x=1"
            passed = ask(
                proxy.socket_path, f"GET {url} HTTP/1.1\r\nHost: x\r\nProxy-Connection: keep-alive\r\n\r\n".encode()
            )
            refused = ask(proxy.socket_path, b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        finally:
            proxy.close()
    assert passed.startswith(b"HTTP/1.0 200 OK\r\n") and passed.endswith(b"\r\n\r\n/a/b.pom?x=1 x")
    assert refused.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert b"\r\n\r\nNot allowed by the sandbox: example.com:443." in refused
    assert proxy.decisions == [f"allow GET {url}", "deny CONNECT example.com:443"]
    assert not (Path(directory) / "egress.sock").exists()
