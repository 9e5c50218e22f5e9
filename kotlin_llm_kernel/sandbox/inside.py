"""Run inside the sandbox before the command (``python -m kotlin_llm_kernel.sandbox.inside [--relay SOCKET] LIMITS
-- COMMAND...``): sets the limits (rlimits of tasks, file size, open files; no core dumps), starts the relay that
joins ``127.0.0.1:3128`` to the egress proxy's Unix socket when asked (a forked process, listening before the
command starts), then becomes the command. It imports only :mod:`.layout` and :mod:`.streams`: it runs before
anything else inside."""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import socket
import sys

from .layout import RELAY_HOST, RELAY_PORT
from .streams import pipe


async def _relay(listener: socket.socket, target: str) -> None:
    async def joined(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_unix_connection(target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))

    server = await asyncio.start_server(joined, sock=listener)
    async with server:
        await server.serve_forever()


def start_relay(target: str) -> None:
    """Listens on the relay's port now, then serves it from a forked process (which lives as long as the sandbox)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((RELAY_HOST, RELAY_PORT))
    listener.listen(64)
    if os.fork() == 0:
        try:
            os.setsid()
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            asyncio.run(_relay(listener, target))
        finally:
            os._exit(0)
    listener.close()


def set_limits(processes: int, file_size: int, open_files: int) -> None:
    for limit, value in (
        (resource.RLIMIT_NPROC, processes),
        (resource.RLIMIT_FSIZE, file_size),
        (resource.RLIMIT_NOFILE, open_files),
        (resource.RLIMIT_CORE, 0),
    ):
        resource.setrlimit(limit, (value, value))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kotlin_llm_kernel.sandbox.inside")
    parser.add_argument("--relay", metavar="SOCKET", help="relay 127.0.0.1:3128 to this Unix socket")
    parser.add_argument("--nproc", type=int, required=True)
    parser.add_argument("--fsize", type=int, required=True)
    parser.add_argument("--nofile", type=int, required=True)
    parser.add_argument("command", nargs="+")
    args = parser.parse_args(argv)
    if args.relay:
        start_relay(args.relay)
    set_limits(args.nproc, args.fsize, args.nofile)
    try:
        os.execvp(args.command[0], args.command)
    except OSError as error:
        sys.exit(f"sandbox: cannot run {args.command[0]}: {error}")


if __name__ == "__main__":
    main()
