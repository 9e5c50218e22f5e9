"""No function in the engine is longer than about 40 lines (issue 39): every `fun` under jvm/src/main/kotlin, be it a
member, top-level, local or in an anonymous object, is measured from its `fun` line to the end of its body."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "jvm" / "src" / "main" / "kotlin"
MAX_LINES = 45  # "about 40": a few lines of slack for a signature or a closing call

_FUN = re.compile(r"\bfun\b")
_IDENTIFIER = re.compile(r"`[^`\n]+`|[A-Za-z_]\w*")
# Words that can open the declaration after a body-less `fun` (in an interface or an abstract class).
_DECLARATION_START = re.compile(
    r"(?:@|(?:fun|val|var|class|interface|object|init|constructor|typealias|companion|enum|data|sealed|annotation|"
    r"private|public|internal|protected|override|abstract|open|final|suspend|inline|operator|infix|tailrec|external|"
    r"const|lateinit)\b)"
)


@dataclass(frozen=True)
class Function:
    line: int
    name: str
    lines: int


def _code_only(text: str) -> str:
    """The text with comments, string and char literals (string templates included) blanked to spaces, newlines kept,
    so that only braces and brackets of code remain and every offset still maps to the same line."""
    out = list(text)
    end = len(text)

    def blank(start: int, stop: int) -> None:
        for k in range(start, stop):
            if out[k] != "\n":
                out[k] = " "

    def block_comment(i: int) -> int:
        depth = 0
        while i < end:
            if text.startswith("/*", i):
                depth += 1
                i += 2
            elif text.startswith("*/", i):
                depth -= 1
                i += 2
                if depth == 0:
                    return i
            else:
                i += 1
        return end

    def string(i: int, raw: bool) -> int:
        while i < end:
            if raw and text.startswith('"""', i):
                i += 3
                while i < end and text[i] == '"':  # quotes before the closing three belong to the string
                    i += 1
                return i
            if text.startswith("${", i):
                i = code(i + 2, in_template=True)
            elif not raw and text[i] == "\\":
                i += 2
            elif not raw and text[i] in '"\n':
                return i + 1
            else:
                i += 1
        return end

    def char(i: int) -> int:
        close = text.find("'", i + 3 if text[i + 1 : i + 2] == "\\" else i + 2)
        return end if close < 0 else close + 1

    def code(i: int, in_template: bool) -> int:
        depth = 0
        while i < end:
            if text.startswith("//", i):
                stop = text.find("\n", i)
                stop = end if stop < 0 else stop
            elif text.startswith("/*", i):
                stop = block_comment(i)
            elif text.startswith('"""', i):
                stop = string(i + 3, raw=True)
            elif text[i] == '"':
                stop = string(i + 1, raw=False)
            elif text[i] == "'":
                stop = char(i)
            else:
                if text[i] == "{":
                    depth += 1
                elif text[i] == "}":
                    if in_template and depth == 0:
                        return i + 1
                    depth -= 1
                i += 1
                continue
            blank(i, stop)
            i = stop
        return end

    code(0, in_template=False)
    return "".join(out)


class _Source:
    """A Kotlin text reduced to its code, with the bracket matching and line arithmetic the measure needs."""

    def __init__(self, text: str) -> None:
        self.code = _code_only(text)
        self.lines = self.code.split("\n")
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)

    def line_of(self, offset: int) -> int:
        """The 0-based line holding an offset."""
        return bisect.bisect_right(self.starts, offset) - 1

    def indent(self, line: int) -> int:
        text = self.lines[line]
        return len(text) - len(text.lstrip())

    def opens_declaration(self, line: int) -> bool:
        return line < len(self.lines) and bool(_DECLARATION_START.match(self.lines[line].lstrip()))

    def matching(self, offset: int, opening: str, closing: str) -> int:
        """The offset just after the bracket that closes the one at `offset` (the `>` of an arrow closes nothing)."""
        depth = 0
        for i in range(offset, len(self.code)):
            if self.code[i] == ">" and self.code[i - 1] == "-":
                continue
            if self.code[i] == opening:
                depth += 1
            elif self.code[i] == closing:
                depth -= 1
                if depth == 0:
                    return i + 1
        return len(self.code)

    def signature(self, after_fun: int) -> tuple[str, int] | None:
        """The function's name and the offset after its parameter list; None for `fun interface`."""
        i = after_fun
        name = "<anonymous>"
        while i < len(self.code):
            char = self.code[i]
            if char == "(":
                return name, self.matching(i, "(", ")")
            if char == "<":
                i = self.matching(i, "<", ">")
                continue
            word = _IDENTIFIER.match(self.code, i)
            if word:
                if word.group() == "interface" and name == "<anonymous>":
                    return None
                name = word.group()
                i = word.end()
            else:
                i += 1
        return None

    def body(self, after_parameters: int) -> tuple[str, int] | None:
        """Whether the body is a block or an expression, and where it starts; None when there is none."""
        i = after_parameters
        while i < len(self.code):
            char = self.code[i]
            if char in "(<":
                i = self.matching(i, char, ")" if char == "(" else ">")
                continue
            if char == "{":
                return "block", i
            if char == "=" and self.code[i + 1 : i + 2] != "=":
                return "expression", i
            if char in "};":
                return None
            if char == "-" and self.code[i + 1 : i + 2] == ">":
                i += 2
                continue
            if char == "\n" and self.opens_declaration(self.line_of(i) + 1):
                return None
            i += 1
        return None

    def expression_end(self, fun_line: int, start: int) -> int:
        """The last line of an expression body: before the next line indented at or below the `fun` line, once the
        brackets opened in the expression are closed again."""
        depth = 0
        line = self.line_of(start)
        column = start - self.starts[line]
        last = line
        while line < len(self.lines):
            text = self.lines[line]
            if line > last and text.strip():
                if depth <= 0 and self.indent(line) <= self.indent(fun_line):
                    break
                last = line
            for char in text[column:]:
                if char in "([{":
                    depth += 1
                elif char in ")]}":
                    depth -= 1
            column = 0
            line += 1
        return last


def functions(text: str) -> list[Function]:
    """Every function in a Kotlin source text, with the 1-based line of its `fun` and its length in lines."""
    source = _Source(text)
    found = []
    for match in _FUN.finditer(source.code):
        signature = source.signature(match.end())
        if signature is None:
            continue
        name, after_parameters = signature
        fun_line = source.line_of(match.start())
        body = source.body(after_parameters)
        if body is None:
            last = source.line_of(after_parameters)
        elif body[0] == "block":
            last = source.line_of(source.matching(body[1], "{", "}") - 1)
        else:
            last = source.expression_end(fun_line, body[1])
        found.append(Function(fun_line + 1, name, last - fun_line + 1))
    return found


def test_the_measure_counts_blocks_and_expressions_past_literals_and_comments() -> None:
    text = '''class A {
    fun block(x: Int): String {
        val s = "}${x.let { "{" }}"   // }
        val c = '}'
        /* } /* nested } */ } */
        val raw = """
            }
        """
        return s + c + raw
    }

    fun <T> List<T>.expression(): Map<String, (Int) -> Unit> =
        associate {
            it.toString() to { _: Int -> }
        }

    fun call() = listOf(
        1,
    )
    abstract fun bare(): Int
    val f = fun(y: Int): Int {
        fun local() = y
        return local()
    }
    fun interface Callback {
        fun invoke()
    }
}
'''
    assert functions(text) == [
        Function(2, "block", 9),
        Function(12, "expression", 4),
        Function(17, "call", 3),
        Function(20, "bare", 1),
        Function(21, "<anonymous>", 4),
        Function(22, "local", 1),
        Function(26, "invoke", 1),
    ]


def test_no_engine_function_is_longer_than_about_forty_lines() -> None:
    measured = {path: functions(path.read_text(encoding="utf-8")) for path in sorted(SOURCES.rglob("*.kt"))}
    assert sum(len(found) for found in measured.values()) > 500, "the scan found too few functions to be trusted"
    long = [
        f"{path.relative_to(SOURCES)}:{function.line} {function.name} ({function.lines} lines)"
        for path, found in measured.items()
        for function in found
        if function.lines > MAX_LINES
    ]
    assert not long, "functions longer than about 40 lines:\n" + "\n".join(long)
