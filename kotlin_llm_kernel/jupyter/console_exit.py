"""``exit`` and ``quit`` as a whole cell end ``jupyter console``, as they do with IPython's kernel: the reply carries
an ``ask_exit`` payload, which the console obeys (and a notebook ignores)."""

from __future__ import annotations

from typing import Any

EXIT_WORDS = frozenset({"exit", "quit"})


def exit_word(code: str) -> str | None:
    """``exit`` or ``quit`` when the whole of ``code`` is one of them, bare or called (``exit()``), else None."""
    text = code.strip()
    word = text[: -len("()")].rstrip() if text.endswith("()") else text
    return word if word in EXIT_WORDS else None


def ask_exit_payload() -> dict[str, Any]:
    """What IPython's kernel sends for ``exit``: the client ends, and shuts the kernel down (``keepkernel`` false)."""
    return {"source": "ask_exit", "keepkernel": False}
