package org.kotlinllm.script.diagnostics

/** A span of a snippet's source: 1-based lines and columns counted in UTF-16 code units; the end is exclusive. */
internal data class SourceRange(
    val startLine: Int,
    val startColumn: Int,
    val endLine: Int,
    val endColumn: Int,
) {
    /** Whether [other] lies within this span. */
    operator fun contains(other: SourceRange): Boolean =
        compareValues(startLine, other.startLine).let { it < 0 || (it == 0 && startColumn <= other.startColumn) } &&
            compareValues(other.endLine, endLine).let { it < 0 || (it == 0 && other.endColumn <= endColumn) }
}

internal enum class Severity(val label: String) { ERROR("error"), WARNING("warning"), INFO("info") }

/**
 * What would fix a diagnostic, as data: [imports] to add (best first), the [names] most likely meant (best first),
 * a [dependency] to declare (`group:artifact`). [DiagnosticRenderer] says the first that applies as the hint line.
 */
internal data class Fixes(
    val imports: List<String> = emptyList(),
    val names: List<String> = emptyList(),
    val dependency: String? = null,
) {
    val isEmpty: Boolean get() = imports.isEmpty() && names.isEmpty() && dependency == null

    companion object {
        val NONE: Fixes = Fixes()
    }
}

/**
 * A located message about a snippet, rendered by [DiagnosticRenderer]; [hint] is an optional one-line advice,
 * [name] the compiler's name of the diagnostic (`UNRESOLVED_REFERENCE`) or null for the engine's own, [fixes] what
 * would fix it, and [followers] how many errors that follow from this one were left out.
 */
internal data class Diagnostic(
    val severity: Severity,
    val message: String,
    val range: SourceRange?,
    val hint: String? = null,
    val name: String? = null,
    val fixes: Fixes = Fixes.NONE,
    val followers: Int = 0,
)
