"""The sandboxed kernel's relay (kotlin_llm_kernel.sandbox.zmq_relay) between real ZMQ sockets: a client on TCP, the
"kernel" bound on ipc in a directory, as ipykernel binds them inside the sandbox; no kernel, no sandbox."""

from __future__ import annotations

import asyncio
import logging
import socket
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import zmq
import zmq.asyncio
from kotlin_llm_kernel.sandbox.zmq_relay import ZmqRelay, ipc_path

from ports import free_port

#: Only catches a hang: every exchange here takes milliseconds.
GUARD = 10


@pytest.fixture
def run_dir() -> Iterator[Path]:
    # short: a Unix socket's path has a length limit (108 bytes) that pytest's tmp_path can pass
    with tempfile.TemporaryDirectory(prefix="relay-") as directory:
        yield Path(directory)


@asynccontextmanager
async def relayed(run_dir: Path, *ports: int) -> AsyncIterator[ZmqRelay]:
    relay = ZmqRelay(ports, run_dir)
    await relay.start()
    try:
        yield relay
    finally:
        await relay.close()


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    async def guarded() -> None:
        await asyncio.wait_for(scenario(), GUARD)

    asyncio.run(guarded())


def test_a_request_waits_for_the_kernel_to_bind_and_gets_its_reply(run_dir: Path) -> None:
    port = free_port()

    async def scenario() -> None:
        context = zmq.asyncio.Context()
        async with relayed(run_dir, port):
            client = context.socket(zmq.REQ)
            client.connect(f"tcp://127.0.0.1:{port}")
            await client.send(b"ping")  # before the kernel's socket exists: the relay retries until it does
            kernel = context.socket(zmq.REP)
            kernel.bind(f"ipc://{ipc_path(run_dir, port)}")
            assert await kernel.recv() == b"ping"
            await kernel.send(b"pong")
            assert await client.recv() == b"pong"
            client.close(0)
            kernel.close(0)
        context.term()

    run(scenario)


def test_identities_and_subscriptions_pass_through(run_dir: Path) -> None:
    """The shell channel's routing by identity (ROUTER) and iopub's subscriptions (seen by an XPUB) are in the
    bytes: nothing is lost by not parsing them."""
    shell, iopub = free_port(), free_port()

    async def scenario() -> None:
        context = zmq.asyncio.Context()
        async with relayed(run_dir, shell, iopub):
            router = context.socket(zmq.ROUTER)
            router.bind(f"ipc://{ipc_path(run_dir, shell)}")
            publisher = context.socket(zmq.XPUB)
            publisher.bind(f"ipc://{ipc_path(run_dir, iopub)}")
            dealer = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.IDENTITY, b"client-1")
            dealer.connect(f"tcp://127.0.0.1:{shell}")
            subscriber = context.socket(zmq.SUB)
            subscriber.setsockopt(zmq.SUBSCRIBE, b"")
            subscriber.connect(f"tcp://127.0.0.1:{iopub}")

            await dealer.send_multipart([b"execute", b"1 + 1"])
            assert await router.recv_multipart() == [b"client-1", b"execute", b"1 + 1"]
            await router.send_multipart([b"client-1", b"reply"])
            assert await dealer.recv_multipart() == [b"reply"]
            assert await publisher.recv() == b"\x01", "the subscription reached the kernel's side"
            await publisher.send_multipart([b"status", b"idle"])
            assert await subscriber.recv_multipart() == [b"status", b"idle"]
            for s in (router, publisher, dealer, subscriber):
                s.close(0)
        context.term()

    run(scenario)


def test_the_kernel_side_closing_ends_the_client_connection(run_dir: Path) -> None:
    port = free_port()

    async def scenario() -> None:
        async def kernel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b"bye " + await reader.readexactly(5))
            await writer.drain()
            writer.close()

        server = await asyncio.start_unix_server(kernel, str(ipc_path(run_dir, port)))
        async with relayed(run_dir, port):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"hello")
            assert await reader.read() == b"bye hello", "the bytes, then the end of the stream"
            writer.close()
        server.close()

    run(scenario)


def test_closing_the_relay_stops_listening_and_ends_its_connections(run_dir: Path) -> None:
    port = free_port()

    async def scenario() -> None:
        received = asyncio.Event()

        async def kernel(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readexactly(1)
            received.set()
            await reader.read()
            writer.close()

        server = await asyncio.start_unix_server(kernel, str(ipc_path(run_dir, port)))
        relay = ZmqRelay([port], run_dir)
        await relay.start()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"x")
        await received.wait()  # relayed: the relay holds no unread byte, so it closes with a FIN, not a reset
        await relay.close()
        assert await reader.read() == b""
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection("127.0.0.1", port)
        writer.close()
        server.close()

    run(scenario)


def test_a_port_in_use_fails_the_start_with_nothing_left_listening(run_dir: Path) -> None:
    free, taken = free_port(), socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()

    async def scenario() -> None:
        relay = ZmqRelay([free, taken.getsockname()[1]], run_dir)
        with pytest.raises(OSError):
            await relay.start()
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection("127.0.0.1", free)

    try:
        run(scenario)
    finally:
        taken.close()


def test_a_connection_still_waiting_for_the_kernel_ends_quietly_with_the_relay(
    run_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    port = free_port()

    async def scenario() -> None:
        relay = ZmqRelay([port], run_dir)
        await relay.start()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.sleep(0)  # the relay accepts; no kernel ever binds its socket
        await relay.close()
        assert await reader.read() == b""
        writer.close()

    run(scenario)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_kernel_socket_that_cannot_be_reached_ends_that_connection(
    run_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    port = free_port()
    too_long = run_dir / ("d" * 120)  # a Unix socket's path has at most 107 bytes: no retry can help

    async def scenario() -> None:
        async with relayed(too_long, port):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            assert await reader.read() == b""
            writer.close()

    run(scenario)
    assert [r.getMessage() for r in caplog.records] == [f"relay of port {port}: AF_UNIX path too long"]
