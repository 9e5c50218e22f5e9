"""Texts bounded for a tool result: an agent's context is small, so a long text is cut and the whole of it is kept
in a file the agent can read in parts."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass

#: Characters of one text (value, stdout, stderr) a result carries.
TEXT_LIMIT = 20_000


@dataclass(frozen=True)
class Bounded:
    text: str
    #: The file holding the whole text when ``text`` was cut, else None.
    full_text_file: str | None = None


def bound(text: str, name: str, limit: int = TEXT_LIMIT) -> Bounded:
    """``text`` as is when it fits in ``limit`` characters, else its first ``limit`` and the whole in a new file
    (``name`` is in the file's name, to tell the stream)."""
    if len(text) <= limit:
        return Bounded(text)
    descriptor, path = tempfile.mkstemp(prefix="kotlin-llm-mcp-", suffix=f"-{name}.txt")
    with os.fdopen(descriptor, "w", encoding="utf-8", errors="surrogatepass") as file:
        file.write(text)
    return Bounded(text[:limit], path)
