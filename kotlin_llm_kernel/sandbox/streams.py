"""Copying a byte stream into another until it ends: the relay inside (:mod:`.inside`), the egress proxy
(:mod:`.egress`) and the Jupyter ports' relay (:mod:`.zmq_relay`) each join two connections with two copies. It
imports only the standard library: :mod:`.inside` runs it with nothing else on the sandbox's path."""

from __future__ import annotations

import asyncio

#: Bytes copied per read, unless the caller says otherwise.
CHUNK = 65536


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, chunk: int = CHUNK) -> None:
    """Copies ``reader`` into ``writer`` until the reader's end or a broken connection, then closes ``writer``."""
    try:
        while data := await reader.read(chunk):
            writer.write(data)
            await writer.drain()
    except OSError:  # ConnectionError among them: either side went away
        pass
    finally:
        writer.close()
