package org.kotlinllm.script.diagnostics

/**
 * Renders diagnostics in the form of the specification:
 * `snippet3.kts:2:9: error: Unresolved reference 'foo'.` followed by `  | ` and the source line with the offending
 * fragment wrapped in `<error>` tags (a fragment spanning lines shows each of its lines), then an optional
 * `hint: …` line (the diagnostic's own, or what its fixes say) and, when errors that follow from it were left out, a
 * line counting them. Diagnostics are separated by one blank line.
 */
internal object DiagnosticRenderer {

    private const val OPEN = "<error>"
    private const val CLOSE = "</error>"
    const val SOURCE_PREFIX: String = "  | "

    fun render(fileName: String, source: SourceText, diagnostics: List<Diagnostic>): String =
        diagnostics.joinToString("\n\n") { render(fileName, source, it) }

    fun render(fileName: String, source: SourceText, diagnostic: Diagnostic): String = buildString {
        val range = diagnostic.range
        append(fileName)
        if (range != null) append(':').append(range.startLine).append(':').append(range.startColumn)
        append(": ").append(diagnostic.severity.label).append(": ").append(diagnostic.message)
        if (range != null) {
            for (lineNumber in range.startLine..maxOf(range.startLine, range.endLine)) {
                val line = source.line(lineNumber) ?: break
                val from = if (lineNumber == range.startLine) range.startColumn - 1 else 0
                val to = if (lineNumber == range.endLine) range.endColumn - 1 else line.length
                append('\n').append(SOURCE_PREFIX)
                append(markLine(line, from.coerceIn(0, line.length), to, lineNumber == range.startLine, lineNumber >= range.endLine))
            }
        }
        (diagnostic.hint ?: hint(diagnostic.fixes))?.let { append("\nhint: ").append(it) }
        when (diagnostic.followers) {
            0 -> {}
            1 -> append("\n(1 more error follows from this one)")
            else -> append("\n(").append(diagnostic.followers).append(" more errors follow from this one)")
        }
    }

    /** The one line that says the best of [fixes]: a dependency to declare, else imports, else names. */
    fun hint(fixes: Fixes): String? = when {
        fixes.dependency != null ->
            "add @file:DependsOn(\"${fixes.dependency}\")" +
                (fixes.imports.firstOrNull()?.let { " and import $it" } ?: "")
        fixes.imports.size == 1 -> "import ${fixes.imports.single()}"
        fixes.imports.isNotEmpty() -> "import one of ${fixes.imports.joinToString(", ")}"
        fixes.names.size == 1 -> "did you mean '${fixes.names.single()}'?"
        fixes.names.isNotEmpty() -> "did you mean one of ${fixes.names.joinToString(", ") { "'$it'" }}?"
        else -> null
    }

    private fun markLine(line: String, from: Int, to: Int, opens: Boolean, closes: Boolean): String = buildString {
        val end = to.coerceIn(from, line.length)
        append(line, 0, from)
        if (opens) append(OPEN)
        append(line, from, end)
        if (closes) append(CLOSE)
        append(line, end, line.length)
    }
}
