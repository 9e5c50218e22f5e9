"""Compile errors agents make, and whether one step fixes them (see bench/README.md).

``python bench/errors.py``

A Python API session (the engine alone) runs each cell of :data:`CELLS`, a corpus of the mistakes LLM agents make
most (a name used without its import, a misspelt name, a Java habit), and reads its errors: the length of its
report per error, the first one's hint, and the fixes its diagnostics give as data (``Diagnostic.imports``,
``names``). The fixes are then applied as a program would, without reading the text (the imports added above the
cell, the names replaced at their ranges), and the cell run again in a second session: the report says how many
cells one step fixed. Cells whose fix is a dependency are counted apart (they need a repository).
"""

from __future__ import annotations

import shlex
import statistics
import sys
from typing import Any

import environment
from environment import REPO

#: The corpus: (what it is, the cell). Each fails to compile as written.
CELLS = [
    ("JDK class", "val d = LocalDate.of(2024, 1, 31)\nd.dayOfWeek"),
    ("JDK class in a type", "fun age(born: LocalDate): Int = 2026 - born.year"),
    ("JDK class, constructor", 'File("/tmp").isDirectory'),
    ("JDK class, two packages", "val now = Instant.now()\nnow.epochSecond > 0"),
    ("JDK concurrency", "val pool = Executors.newFixedThreadPool(2)\npool.shutdown()"),
    ("JDK regex helper", 'Pattern.compile("a+").matcher("aaa").matches()'),
    ("JDK big numbers", 'BigDecimal("1.10") + BigDecimal("2.20")'),
    ("JDK atomic", "val counter = AtomicInteger(0)\ncounter.incrementAndGet()"),
    ("JDK files", 'Files.exists(Paths.get("/tmp"))'),
    ("JDK UUID", "UUID.randomUUID().toString().length"),
    ("stdlib extension", 'import kotlin.io.path.Path\nPath("/tmp").exists()'),
    ("stdlib time", "val d = 2.seconds\nd.inWholeMilliseconds"),
    ("stdlib random", "Random.nextInt(1, 2)"),
    ("stdlib concurrent", "thread { }.join()"),
    ("stdlib measure", "measureTimeMillis { } >= 0"),
    ("coroutines flow", "flowOf(1, 2, 3)"),
    ("typo: function", 'printn("a")'),
    ("typo: case", "mutableListof(1, 2)"),
    ("typo: member", 'val word = "abc"\nword.lenght'),
    ("typo: lambda call", "val xs = listOf(3, 1, 2)\nxs.fitler { it > 1 }"),
    ("typo: sort", "listOf(3, 1, 2).sortd()"),
    ("typo: extension", "listOf(1, 2).joinToStrin()"),
    ("typo: string member", '"abc".upercase()'),
    ("typo: map member", 'mapOf(1 to "a").getOrDefalt(2, "b")'),
    ("Java habit: length()", 'val s = "abc"\ns.length()'),
    ("Java habit: size()", "val arr = arrayOf(1, 2, 3)\narr.size()"),
    ("Java habit: System.out", 'System.out.printn("x")'),
    ("typo: Math", "Math.sqroot(4.0)"),
    ("typo: earlier declaration", "basketTotl + 1"),
    ("missing library: ktor", "import io.ktor.client.*\nHttpClient()"),
    ("missing library: serialization", "Json.encodeToString(listOf(1))"),
]
#: Run before the corpus: a declaration of an earlier cell that a typo means.
PRELUDE = "val basketTotal = 41"


def _fixed(code: str, diagnostics: Any) -> str | None:
    """``code`` with the fixes of its ``diagnostics`` applied, as a program would apply them (imports added above
    it, a misspelt name replaced by the first name meant, last first so that the ranges hold); None when none names
    a fix."""
    imports = [d.imports[0] for d in diagnostics if d.imports]
    renames = sorted((d for d in diagnostics if d.names and not d.imports and d.start and d.end), key=lambda d: d.start)
    if not imports and not renames:
        return None
    lines = code.split("\n")
    for diagnostic in reversed(renames):
        (line, start), (_, end) = diagnostic.start, diagnostic.end
        text = lines[line - 1]
        lines[line - 1] = text[: start - 1] + diagnostic.names[0] + text[end - 1 :]
    return "\n".join([*(f"import {name}" for name in dict.fromkeys(imports)), *lines])


def main() -> int:
    from kotlin_llm_kernel import Error, ScriptSession, SessionOptions

    command = shlex.join(["python", "bench/errors.py", *sys.argv[1:]])
    rows = []
    # the corpus runs in a session of its own, which its failing cells leave as it was; the fixes, which declare and
    # import, in another
    with (
        ScriptSession(options=SessionOptions(echo=False)) as session,
        ScriptSession(options=SessionOptions(echo=False)) as fixes,
    ):
        session.execute(PRELUDE)
        fixes.execute(PRELUDE)
        for label, code in CELLS:
            result = session.execute(code)
            if not isinstance(result, Error) or not result.diagnostics:
                raise RuntimeError(f"{label}: expected a compile error")
            first = next(d for d in result.diagnostics if d.severity == "error")
            errors = sum(1 for d in result.diagnostics if d.severity == "error")
            fix = _fixed(code, [d for d in result.diagnostics if d.severity == "error"])
            outcome = "no fix"
            if first.dependency:
                outcome = "dependency"
            elif fix is not None:
                outcome = "fixed" if not isinstance(fixes.execute(fix), Error) else "not fixed"
            rows.append((label, len(result.message) / errors, first.hint or "", outcome))
    counts = {kind: sum(1 for row in rows if row[3] == kind) for kind in ("fixed", "not fixed", "no fix", "dependency")}
    lines = [
        f"`{command}`, {environment.now_utc()}, repository {environment.git_revision(REPO)}; {len(rows)} cells.",
        "",
        "| cell | chars per error | hint | one step |",
        "|---|---:|---|---|",
        *(f"| {label} | {chars:.0f} | {hint} | {outcome} |" for label, chars, hint, outcome in rows),
        "",
        f"Fixed in one step by the diagnostics' data: **{counts['fixed']} of {len(rows)}**; a dependency to add: "
        f"{counts['dependency']}; a fix that did not compile: {counts['not fixed']}; no fix: {counts['no fix']}. "
        f"Median report per error: {statistics.median(row[1] for row in rows):.0f} characters.",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
