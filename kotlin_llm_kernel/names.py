"""What the kernel knows about names without asking the compiler: keywords, and the declarations of the cells run.

Used for completion and inspection alongside the engine's answers, and instead of them when it has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KEYWORDS: tuple[str, ...] = tuple(
    sorted(
        """abstract annotation as break by catch class companion const continue data do else enum false finally for
        fun if import in infix init inline inner interface internal is lateinit null object open operator out
        override private protected public return sealed super suspend this throw true try typealias val value var
        vararg when where while""".split()
    )
)

_DECLARATION = re.compile(
    r"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:private|internal|public|protected|open|abstract|sealed|data|enum|value|"
    r"inline|suspend|operator|infix|tailrec|const|lateinit|override|annotation|fun)\s+)*"
    r"(?P<kind>val|var|fun|class|interface|object|typealias)\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?(?P<name>[A-Za-z_]\w*)",
    re.MULTILINE,
)
_IDENT_TAIL = re.compile(r"[A-Za-z_]\w*$")
_IDENT_HEAD = re.compile(r"^\w*")


@dataclass(frozen=True)
class Declaration:
    name: str
    kind: str
    snippet: int
    line: int
    source: str

    def describe(self) -> str:
        return f"{self.source.strip()}\n  (declared at snippet{self.snippet}.kts:{self.line})"


class DeclaredNames:
    """The top-level declarations of the snippets run so far, latest first."""

    def __init__(self) -> None:
        self._declarations: dict[str, Declaration] = {}

    def record(self, snippet: int, code: str) -> None:
        for match in _DECLARATION.finditer(code):
            line = code.count("\n", 0, match.start()) + 1
            source = code.splitlines()[line - 1] if code else ""
            self._declarations.pop(match["name"], None)
            self._declarations[match["name"]] = Declaration(match["name"], match["kind"], snippet, line, source)

    def add_names(self, names: list[str], kind: str = "property") -> None:
        for name in names:
            self._declarations.setdefault(name, Declaration(name, kind, 0, 0, f"val {name} (a provided property)"))

    def names(self) -> list[str]:
        return list(reversed(self._declarations))

    def get(self, name: str) -> Declaration | None:
        return self._declarations.get(name)


def prefix_at(code: str, cursor: int) -> tuple[str, int]:
    """The identifier part before ``cursor`` and where it starts."""
    match = _IDENT_TAIL.search(code[:cursor])
    return (match.group(), match.start()) if match else ("", cursor)


def name_at(code: str, cursor: int) -> str:
    """The whole identifier around ``cursor`` (or just before it)."""
    prefix, _ = prefix_at(code, cursor)
    rest = _IDENT_HEAD.match(code[cursor:])
    return prefix + (rest.group() if rest else "")


def after_dot(code: str, start: int) -> bool:
    """Whether the identifier starting at ``start`` is a member access (``x.na|``)."""
    return code[:start].rstrip().endswith(".")


def complete_locally(code: str, cursor: int, declared: DeclaredNames) -> tuple[list[str], int]:
    """Keywords and declared names starting with the identifier before ``cursor``; none after a dot."""
    prefix, start = prefix_at(code, cursor)
    if after_dot(code, start):
        return [], start
    candidates = [*declared.names(), *KEYWORDS]
    return [c for c in dict.fromkeys(candidates) if c.startswith(prefix)], start
