"""Text as Kotlin string literals, for the Kotlin source a host writes for a session (papermill's parameters cell,
the MCP server's ``@file:DependsOn``): the compiler reads back exactly the text, and a reader of the source sees every
character that would otherwise be invisible. Pure: no JVM, no Jupyter."""

from __future__ import annotations

import unicodedata

_ESCAPES = {"\\": "\\\\", '"': '\\"', "$": "\\$", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b"}
# Characters written as \uXXXX: controls, invisible format characters (bidi overrides, zero-width ones), surrogates,
# private use, unassigned, line and paragraph separators, and spaces other than U+0020, so the source shows them.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


def kotlin_string(text: str) -> str:
    """A Kotlin string literal of ``text``: ``$``, quotes, backslashes and line breaks escaped, invisible characters
    as ``\\uXXXX`` (surrogate pairs beyond U+FFFF); printable ones such as ``é`` or ``日`` kept as they are."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char != " " and unicodedata.category(char) in _ESCAPED_CATEGORIES:
            out.append(_unicode_escape(ord(char)))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _unicode_escape(code: int) -> str:
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}"
