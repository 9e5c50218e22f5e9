"""A free TCP port on 127.0.0.1 for a server a test starts (the tests listen on nothing else)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nothing listens on now (closed again: the server binds it next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
