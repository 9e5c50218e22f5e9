"""The launcher protocol's pure parts: its arguments, the ports it picks, the communication port's requests."""

from __future__ import annotations

import json
import signal
import socket
import threading

import pytest
from kotlin_llm_kernel.remote.protocol import (
    CommListener,
    LauncherError,
    PortRange,
    choose_ports,
    curve_policy,
    parse_address,
    parse_port_range,
)


@pytest.mark.parametrize("text", [None, "", "0..0", "{port_range}", "40000..40000"])
def test_any_port(text: str | None) -> None:
    assert parse_port_range(text).any_port


def test_port_range() -> None:
    assert parse_port_range("40000..41000") == PortRange(40000, 41000)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("40000-41000", "--port-range '40000-41000' is not LOWER..UPPER (e.g. 40000..41000, or 0..0 for any port)"),
        ("41000..40000", "--port-range '41000..40000': the ports must rise within 1024..65535"),
        ("100..5000", "--port-range '100..5000': the ports must rise within 1024..65535"),
        ("40000..40010", "--port-range '40000..40010' holds fewer than 1000 ports"),
    ],
)
def test_bad_port_range(text: str, message: str) -> None:
    with pytest.raises(LauncherError) as error:
        parse_port_range(text)
    assert str(error.value) == message


def test_ports_within_the_range_and_distinct() -> None:
    ports = choose_ports("127.0.0.1", PortRange(40000, 45000), 6)
    assert len(set(ports)) == 6
    assert all(40000 <= port <= 45000 for port in ports)


def test_address() -> None:
    assert parse_address("10.1.2.3:8877") == ("10.1.2.3", 8877)


@pytest.mark.parametrize("text", ["10.1.2.3", "10.1.2.3:port", ":8877", "10.1.2.3:0", "{response_address}"])
def test_bad_address(text: str) -> None:
    with pytest.raises(LauncherError) as error:
        parse_address(text)
    assert str(error.value) == f"--response-address {text!r} is not HOST:PORT"


@pytest.mark.parametrize(
    ("text", "policy"),
    [("auto", "auto"), ("Required", "required"), ("", None), ("disabled", None), ("{transport_encryption}", None)],
)
def test_curve_policy(text: str, policy: str | None) -> None:
    assert curve_policy(text) == policy


def test_bad_curve_policy() -> None:
    with pytest.raises(LauncherError) as error:
        curve_policy("always")
    assert str(error.value) == "--transport-encryption 'always' is not one of auto, required, disabled"


def _send(port: int, data: bytes) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(data)


def test_listener_signals_and_shutdown() -> None:
    sent: list[int] = []
    delivered = threading.Event()

    def record(signum: int) -> None:
        sent.append(signum)
        delivered.set()

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    listener = CommListener(sock, record)
    listener.start()
    port = listener.port
    _send(port, json.dumps({"signum": 0}).encode())  # a poll: no signal
    _send(port, b"not json")  # ignored, and the listener goes on
    _send(port, json.dumps({"signum": signal.SIGINT}).encode())  # before ready: dropped
    _send(port, json.dumps({"signum": signal.SIGUSR2}).encode())
    assert delivered.wait(10)
    listener.ready.set()
    delivered.clear()
    _send(port, json.dumps({"signum": signal.SIGINT}).encode())
    assert delivered.wait(10)
    assert sent == [signal.SIGUSR2, signal.SIGINT]
    _send(port, json.dumps({"shutdown": 1}).encode())
    assert listener.stopped.wait(10)
    with pytest.raises(ConnectionRefusedError):
        _send(port, b"{}")


def _arguments(**changes: str) -> list[str]:
    given = {"--kernel-id": "k1", "--response-address": "127.0.0.1:8877", "--public-key": "KEY"} | changes
    return [part for name, value in given.items() for part in (name, value)]


def test_launcher_arguments_as_the_bootstrap_passes_them() -> None:
    from kotlin_llm_kernel.remote.launcher import read_arguments

    argv = [*_arguments(), "--port-range", "0..0", "--spark-context-initialization-mode", "none"]
    argv += ["--kernel-class-name", "ipykernel.ipkernel.IPythonKernel", "--KotlinKernel.max_heap=1g"]
    request = read_arguments(argv, environ={"KOTLIN_LLM_KERNEL_IP": "127.0.0.1"})
    assert (request.kernel_id, request.response_address, request.ip) == ("k1", ("127.0.0.1", 8877), "127.0.0.1")
    assert len(set(request.ports)) == 5
    assert request.kernel_arguments == ["--KotlinKernel.max_heap=1g"]
    assert request.curve is None


def test_launcher_argument_error_names_the_argument(capsys: pytest.CaptureFixture[str]) -> None:
    from kotlin_llm_kernel.remote.launcher import read_arguments

    with pytest.raises(SystemExit) as exit_:
        read_arguments(_arguments(**{"--response-address": "nowhere"}), environ={"KOTLIN_LLM_KERNEL_IP": "127.0.0.1"})
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "python -m kotlin_llm_kernel.remote.launcher: error: --response-address 'nowhere' is not HOST:PORT"
    )
