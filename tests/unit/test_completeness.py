"""is_complete in pure Python (kotlin_llm_kernel.jupyter.completeness.check): statuses, indent hints, no pathological
slowness.

tests/test_protocol.py checks the same answers through a kernel's is_complete_request.
"""

from __future__ import annotations

import time

import pytest
from kotlin_llm_kernel.jupyter.completeness import check

COMPLETE = [
    "1 + 1",
    "val x = 41",
    "fun f() {\n    1\n}",
    'val s = """a${x}b"""',
    'val t = """\n  ${ listOf(1,\n2) }\n"""',
    "import kotlin.math.*",
    "x++",
    "x!!",
    "val f: (Int) -> Int = { it }",
    "val m: Map<String, Int> = mapOf()",
    "listOf(1, 2)\n    .map { it * 2 }",
    '@file:DependsOn("org.jsoup:jsoup:1.16.1")',
    'x // a comment with ( and "',
    "/* a /* nested */ comment */ 1",
    "val c = '\\n'",
    'val s = "\\"quoted\\" ${"inner"}"',
    "if (x > 0) 1 else 2",
    "",
    "fun `a name with spaces`() = 1",
    'val q = """say ""hi""""',
    "val r = 1..<10",
    "val u: String? = null",
    "for (i in 0 until 3) println(i)",
]
INCOMPLETE = [
    ("fun f() {", "    "),
    ("fun f() {\n    if (x) {", "        "),
    ("listOf(1,", "    "),
    ('val s = """abc', ""),
    ('val s = "a ${', "    "),
    ("/* open /* nested */", ""),
    ("x +", "    "),
    ("val x =", "    "),
    ("a &&", "    "),
    ("a.", "    "),
    ("val f = { x ->", "    "),
    ("if (x > 0)", "    "),
    ("if (x > 0) 1 else", "    "),
    ("when (x)", "    "),
    ("listOf(listOf(1,", "        "),
    ('val s = """${listOf(', "        "),
    ("x ?:", "    "),
    ("try", "    "),
]
INVALID = [")", "(]", "fun f() }", 'println("abc', 'val s = "abc\n"', "val c = 'a", "`open\nname`"]


@pytest.mark.parametrize("code", COMPLETE)
def test_complete(code: str) -> None:
    assert check(code).reply() == {"status": "complete"}


@pytest.mark.parametrize(("code", "indent"), INCOMPLETE)
def test_incomplete(code: str, indent: str) -> None:
    assert check(code).reply() == {"status": "incomplete", "indent": indent}


@pytest.mark.parametrize("code", INVALID)
def test_invalid(code: str) -> None:
    assert check(code).reply() == {"status": "invalid"}


def test_a_large_cell_is_checked_without_pathological_slowness() -> None:
    # a generous bound that only catches a hang or a quadratic scan; the typical time (~1 ms) is not a test's business
    cell = 'fun f{i}(x: Int): Int {{\n    val s = """${{x}} // not a comment"""\n    return x + {i} // ")\n}}\n'
    code = "".join(cell.format(i=i) for i in range(60)) + "fun g() {"  # ~5 KB, incomplete at the end
    check(code)  # warm
    started = time.perf_counter()
    for _ in range(20):
        status = check(code).status
    elapsed = (time.perf_counter() - started) / 20
    assert status == "incomplete"
    assert elapsed < 0.5, f"is_complete took {elapsed * 1000:.1f} ms"
