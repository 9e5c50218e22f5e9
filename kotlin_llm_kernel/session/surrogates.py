"""Lone surrogates: halves of UTF-16 pairs that a Python ``str`` can hold (from a JSON ``\\ud800`` escape, or a Java
string) but that UTF-8 cannot encode, so no message carrying one can be sent. They are replaced by U+FFFD.

Text only, for any host; the Jupyter session's packer that copes with them is :mod:`kotlin_llm_kernel.jupyter.packing`.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
# A paired surrogate in JSON or UTF-16 becomes one code point in a Python str: any surrogate left is a lone one.
_LONE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (same length, so offsets into it still hold)."""
    return _LONE.sub(REPLACEMENT, text) if _LONE.search(text) else text


def lone_surrogates(text: str) -> list[tuple[int, int, str]]:
    """Where ``text`` holds lone surrogates: (line, column, ``U+XXXX``), 1-based, in code points."""
    found = []
    for match in _LONE.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        line = text.count("\n", 0, match.start()) + 1
        found.append((line, match.start() - line_start + 1, f"U+{ord(match.group()):04X}"))
    return found


def surrogate_notice(text: str, shown: int = 5) -> str | None:
    """The line telling that (and where) lone surrogates of ``text`` were replaced, or None when it has none."""
    found = lone_surrogates(text)
    if not found:
        return None
    places = ", ".join(f"line {line}, column {column} ({code})" for line, column, code in found[:shown])
    more = f" and {len(found) - shown} more" if len(found) > shown else ""
    count = "1 lone surrogate" if len(found) == 1 else f"{len(found)} lone surrogates"
    return (
        f"[kotlin-llm] the code held {count} (half of a UTF-16 pair, which is not text), replaced by U+FFFD before "
        f"it ran: {places}{more}. In a string literal, write such a char as an escape, e.g. \\uD800.\n"
    )
