"""The kernel's stdin channel over real zmq sockets and a real jupyter_client Session: requests, replies, Ctrl-D,
and a request stopped while it waits (a late reply to it never answers the next one)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import zmq
from jupyter_client.session import Session
from kotlin_llm_kernel.jupyter.stdin_channel import InputRequest, StdinChannel

#: Only catches a hang: every step here takes milliseconds.
HANG_GUARD_MS = 30_000
CLIENT = b"frontend"


class Frontend:
    """The client's end of the stdin channel (a DEALER, as jupyter_client's)."""

    def __init__(self, context: zmq.Context[Any], url: str, session: Session) -> None:
        self.socket = context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.IDENTITY, CLIENT)
        self.socket.connect(url)
        self.session = session

    def request(self) -> dict[str, Any]:
        assert self.socket.poll(HANG_GUARD_MS), "no input_request came"
        _, msg = self.session.recv(self.socket)
        assert msg is not None and msg["msg_type"] == "input_request"
        return msg

    def reply(self, request: dict[str, Any], value: str) -> None:
        self.session.send(self.socket, "input_reply", {"value": value}, parent=request)


@pytest.fixture
def sockets() -> Iterator[tuple[StdinChannel, Frontend]]:
    context: zmq.Context[Any] = zmq.Context()
    kernel_socket = context.socket(zmq.ROUTER)
    port = kernel_socket.bind_to_random_port("tcp://127.0.0.1")
    session = Session(key=b"test-key")
    frontend = Frontend(context, f"tcp://127.0.0.1:{port}", session)
    # the ROUTER can only route to a peer it has heard of: the frontend says hello (the channel drains it)
    frontend.socket.send(b"hello")
    assert kernel_socket.poll(HANG_GUARD_MS)
    channel = StdinChannel(session, kernel_socket, lambda: None)
    yield channel, frontend
    frontend.socket.close(linger=0)
    context.destroy(linger=0)


def request(prompt: str, answers: queue.Queue[str | None], stop: threading.Event | None = None) -> InputRequest:
    parent = {"header": {"msg_id": f"execute-{prompt}"}}
    return InputRequest(prompt, prompt == "password", parent, [CLIENT], stop or threading.Event(), answers.put)


def test_a_reply_answers_its_request_and_ctrl_d_ends_input(sockets: tuple[StdinChannel, Frontend]) -> None:
    channel, frontend = sockets
    answers: queue.Queue[str | None] = queue.Queue()
    channel.ask(request("password", answers))
    sent = frontend.request()
    assert sent["content"] == {"prompt": "password", "password": True}
    assert sent["parent_header"]["msg_id"] == "execute-password"
    frontend.reply(sent, "s3cret")
    assert answers.get(timeout=HANG_GUARD_MS / 1000) == "s3cret"
    channel.ask(request("", answers))
    frontend.reply(frontend.request(), "\x04")
    assert answers.get(timeout=HANG_GUARD_MS / 1000) is None


def test_a_stopped_request_is_never_answered(sockets: tuple[StdinChannel, Frontend]) -> None:
    channel, frontend = sockets
    stopped: queue.Queue[str | None] = queue.Queue()
    answers: queue.Queue[str | None] = queue.Queue()
    stop = threading.Event()
    channel.ask(request("first", stopped, stop))
    first = frontend.request()
    stop.set()  # an interrupt while it waits
    channel.ask(request("skipped", stopped, stop))  # stopped before its turn: never sent
    channel.ask(request("second", answers))
    second = frontend.request()
    assert second["content"]["prompt"] == "second"
    frontend.reply(first, "late")  # after the next request was sent: told apart by its parent
    frontend.reply(second, "right")
    assert answers.get(timeout=HANG_GUARD_MS / 1000) == "right"
    assert stopped.empty()
