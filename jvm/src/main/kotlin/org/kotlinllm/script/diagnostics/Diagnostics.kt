package org.kotlinllm.script.diagnostics

/** A span of a snippet's source: 1-based lines and columns counted in UTF-16 code units; the end is exclusive. */
internal data class SourceRange(
    val startLine: Int,
    val startColumn: Int,
    val endLine: Int,
    val endColumn: Int,
)

internal enum class Severity(val label: String) { ERROR("error"), WARNING("warning"), INFO("info") }

/** A located message about a snippet, rendered by [DiagnosticRenderer]; [hint] is an optional one-line advice. */
internal data class Diagnostic(
    val severity: Severity,
    val message: String,
    val range: SourceRange?,
    val hint: String? = null,
)
