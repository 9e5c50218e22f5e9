"""Text as Kotlin string literals (kotlin_llm_kernel.session.kotlin_strings), the one writer of them that papermill's
parameters and the MCP server's ``@file:DependsOn`` share; that the Kotlin compiler reads the literals back is checked
by tests/test_papermill.py and tests/test_mcp.py."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import kotlin_llm_kernel
from kotlin_llm_kernel.session.kotlin_strings import kotlin_string

PACKAGE = Path(kotlin_llm_kernel.__file__).parent
#: Kotlin's escapes in a string literal (the language specification, "Escaped characters").
_KOTLIN_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "'": "'", '"': '"', "\\": "\\", "$": "$"}
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|(.))", re.DOTALL)


def read_back(literal: str) -> str:
    """The text a Kotlin compiler reads from ``literal``: its escapes undone, UTF-16 surrogate pairs joined."""
    assert literal[0] == literal[-1] == '"' and len(literal) >= 2, literal
    body = literal[1:-1]
    unescaped = _ESCAPE.sub(lambda m: chr(int(m[1], 16)) if m[1] else _KOTLIN_ESCAPES[m[2]], body)
    return unescaped.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


def unescaped_specials(literal: str) -> list[str]:
    """What would end the literal, start a template or break the line if it were not escaped."""
    body = _ESCAPE.sub("", literal[1:-1])
    return [char for char in body if char in '"$\\\n\r']


def test_quotes_templates_backslashes_and_line_breaks_are_escaped() -> None:
    assert kotlin_string('say "hi"') == r'"say \"hi\""'
    assert kotlin_string("$HOME and ${x}") == r'"\$HOME and \${x}"'
    assert kotlin_string("C:\\dir\\n") == r'"C:\\dir\\n"'
    assert kotlin_string("a\nb\r\tc\bd") == r'"a\nb\r\tc\bd"'
    assert kotlin_string("") == '""'
    assert kotlin_string("it's") == '"it\'s"'


def test_printable_unicode_stays_and_invisible_characters_are_escaped() -> None:
    assert kotlin_string("é 日本 😀 Ω") == '"é 日本 😀 Ω"'
    assert kotlin_string("\x00\x07\x1b\x7f") == r'"\u0000\u0007\u001B\u007F"'
    # zero-width space, a right-to-left override, a byte order mark: would be invisible in the source
    assert kotlin_string("a\u200bb\u202ec\ufeff") == r'"a\u200Bb\u202Ec\uFEFF"'
    assert kotlin_string("no\u00a0break\u2028line\u3000") == r'"no\u00A0break\u2028line\u3000"'
    # a lone surrogate (from a command line that was not UTF-8) and private use beyond U+FFFF as UTF-16 escapes
    assert kotlin_string("\udcff") == r'"\uDCFF"'
    assert kotlin_string("\U000f0001") == r'"\uDB80\uDC01"'


def test_every_literal_reads_back_as_its_text() -> None:
    texts = [
        "",
        'a"b\\c$d\ne',
        "https://repo.example/maven2/\t",
        "org.example:lib:1.0\r\n",
        "${'$'}{x} \\$ \\\\",
        "".join(chr(code) for code in range(0x00, 0x250)),
        "\u200b\u202e\ufeff\u2028\u2029\u00a0\u3000\ue000\U000f0001\U0001f600",
    ]
    for text in texts:
        literal = kotlin_string(text)
        assert read_back(literal) == text, literal
        assert unescaped_specials(literal) == [], literal


def test_papermill_and_the_mcp_server_write_strings_with_this_one_function() -> None:
    definitions = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name == "kotlin_string"
    ]
    assert definitions == ["session/kotlin_strings.py"]
    for user in ("papermill/kotlin_literals.py", "mcp/server.py"):
        source = (PACKAGE / user).read_text(encoding="utf-8")
        assert "from ..session.kotlin_strings import kotlin_string" in source, user
