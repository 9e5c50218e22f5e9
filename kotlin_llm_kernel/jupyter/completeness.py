"""``is_complete`` for Kotlin in pure Python: a single pass over the code, no JVM.

``incomplete``: an open bracket, an open raw string (``\"\"\"…``) or string template (``${…``), an open block
comment (they nest in Kotlin), a trailing binary operator or keyword that needs an operand (``+``, ``=``, ``&&``,
``.``, ``->``, ``else``, …), or an ``if (…)``/``while (…)``/``for (…)``/``when (…)`` still without its body.
``invalid``: a closing bracket without its opener, or a ``"…"`` string or ``'…'`` literal left open at the end of
its line or of the code (Kotlin strings cannot span lines, so no continuation can fix it: the console then runs
the code and the compiler's error says what is wrong). ``complete`` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Status = Literal["complete", "incomplete", "invalid"]

INDENT = "    "

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}

# Longest first, so that greedy matching finds `..<` before `..` before `.`.
_OPERATORS = sorted(
    """=== !== ..< ?. ?: !! && || == != <= >= += -= *= /= %= ++ -- -> .. :: = + - * / % < > ! . , : ? @ ; &""".split(),
    key=len,
    reverse=True,
)

#: Tokens after which an expression must follow. `>` is left out (it ends generic types: `List<Int>`),
#: as are postfix `++`, `--`, `!!` and `?` (nullable types).
_TRAILING_OPERATORS = frozenset(
    "=== !== ..< ?. ?: && || == != <= >= += -= *= /= %= -> .. :: = + - * / % < ! . , : @ &".split()
)
_TRAILING_KEYWORDS = frozenset({"else", "in", "is", "as", "try", "do", "finally", "catch", "where", "by"})
_BODY_KEYWORDS = frozenset({"if", "while", "for", "when", "catch"})


@dataclass(frozen=True)
class Completeness:
    status: Status
    indent: str = ""

    def reply(self) -> dict[str, str]:
        content: dict[str, str] = {"status": self.status}
        if self.status == "incomplete":
            content["indent"] = self.indent
        return content


@dataclass
class _Frame:
    """An open construct: a bracket (with the token before it), a string, or a template's `${`."""

    kind: str  # "(", "[", "{", "${", '"', '"""'
    before: str = ""


def _is_ident_start(c: str) -> bool:
    return c.isalpha() or c == "_"


def _is_ident_part(c: str) -> bool:
    return c.isalnum() or c == "_"


def check(code: str) -> Completeness:
    """Whether ``code`` is a complete Kotlin snippet (see the module docstring)."""
    stack: list[_Frame] = []
    last = ""  # the last significant code token at any depth
    last_closed_before = ""  # for a trailing `)`: the token before its `(`
    i, n = 0, len(code)
    while i < n:
        top = stack[-1].kind if stack else None
        c = code[i]
        if top == '"':
            if c == "\\":
                i += 2
                continue
            if c == "\n":
                return Completeness("invalid")
            if c == '"':
                stack.pop()
                last, i = "<string>", i + 1
                continue
            if code.startswith("${", i):
                stack.append(_Frame("${"))
                last, i = "{", i + 2
                continue
            i += 1
            continue
        if top == '"""':
            if code.startswith('"""', i):
                while code.startswith('"', i + 3):  # `""""` ends the string with a quote inside it
                    i += 1
                stack.pop()
                last, i = "<string>", i + 3
                continue
            if code.startswith("${", i):
                stack.append(_Frame("${"))
                last, i = "{", i + 2
                continue
            i += 1
            continue
        # code
        if c.isspace():
            i += 1
            continue
        if code.startswith("//", i):
            end = code.find("\n", i)
            i = n if end < 0 else end
            continue
        if code.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if code.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif code.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            if depth:
                return Completeness("incomplete", INDENT * len(stack))
            continue
        if code.startswith('"""', i):
            stack.append(_Frame('"""'))
            i += 3
            continue
        if c == '"':
            stack.append(_Frame('"'))
            i += 1
            continue
        if c == "'":
            j = i + 1
            while j < n and code[j] not in "'\n":
                j += 2 if code[j] == "\\" else 1
            if j >= n or code[j] == "\n":
                return Completeness("invalid")
            last, i = "<char>", j + 1
            continue
        if c == "`":
            j = code.find("`", i + 1)
            newline = code.find("\n", i + 1)
            if j < 0 or (0 <= newline < j):
                return Completeness("invalid")
            last, i = "<name>", j + 1
            continue
        if c in _OPENERS:
            stack.append(_Frame(c, before=last))
            last, i = c, i + 1
            continue
        if c in _CLOSERS:
            if not stack or stack[-1].kind not in (_CLOSERS[c], "${" if c == "}" else ""):
                return Completeness("invalid")
            frame = stack.pop()
            last_closed_before = frame.before
            last, i = ("<template>" if frame.kind == "${" else c), i + 1
            continue
        if _is_ident_start(c):
            j = i + 1
            while j < n and _is_ident_part(code[j]):
                j += 1
            last, i = code[i:j], j
            continue
        if c.isdigit():
            j = i + 1
            while j < n and (_is_ident_part(code[j]) or (code[j] == "." and j + 1 < n and code[j + 1].isdigit())):
                j += 1
            last, i = "<number>", j
            continue
        op = next((o for o in _OPERATORS if code.startswith(o, i)), c)
        if op == "*" and last == ".":  # import wildcard: `import kotlin.math.*`
            op = "<wildcard>"
        last, i = op, i + len(op)

    if stack and stack[-1].kind == '"':
        return Completeness("invalid")
    if stack:
        open_brackets = sum(1 for f in stack if f.kind in _OPENERS or f.kind == "${")
        return Completeness("incomplete", INDENT * open_brackets)
    if last in _TRAILING_OPERATORS or last in _TRAILING_KEYWORDS:
        return Completeness("incomplete", INDENT)
    if last == ")" and last_closed_before in _BODY_KEYWORDS:
        return Completeness("incomplete", INDENT)
    return Completeness("complete")
