package org.kotlinllm.script.internal.compiler.source

import org.kotlinllm.script.diagnostics.SourceText
import kotlin.script.experimental.api.ScriptDiagnostic
import kotlin.script.experimental.api.SourceCode

/**
 * A second attempt at compiling a snippet whose first compilation failed on a limitation of the K2 REPL compiler:
 * given the snippet and the diagnostics of its first compilation, a rewrite of its text that avoids the limitation,
 * or null when none applies.
 */
internal fun interface SecondAttempt {
    fun rewrite(parsed: ParsedSnippet, failed: List<ScriptDiagnostic>): SnippetRewrite?
}

/**
 * The text of a snippet with [insertions] made into it, compiled instead of the user's text. Insertions never hold a
 * line break, so the lines of the compiled code (and of its stack traces) are the user's; the columns of the
 * diagnostics of its compilation are mapped back onto the user's text by [mapBack].
 */
internal class SnippetRewrite(
    private val original: SourceText,
    insertions: List<Insertion>,
    /** What a failed second compilation reports: by default its own diagnostics, mapped back. */
    private val failure: (first: List<ScriptDiagnostic>, second: List<ScriptDiagnostic>) -> List<ScriptDiagnostic> =
        { _, second -> second },
) {
    /**
     * [text] inserted before the character at [offset] of the user's text; a [leading] one before the others made
     * at the same offset (an import before a statement's rewrite).
     */
    class Insertion(val offset: Int, val text: String, val leading: Boolean = false) {
        init {
            require('\n' !in text && '\r' !in text) { "an insertion must not break a line" }
        }
    }

    private val insertions = insertions.sortedWith(compareBy({ it.offset }, { !it.leading }))

    val text: String = buildString {
        var at = 0
        for (insertion in this@SnippetRewrite.insertions) {
            append(original.text, at, insertion.offset)
            append(insertion.text)
            at = insertion.offset
        }
        append(original.text, at, original.text.length)
    }

    private val rewritten = SourceText(text)

    /** The diagnostics of compiling [text], located in the user's text. */
    fun mapBack(diagnostics: List<ScriptDiagnostic>): List<ScriptDiagnostic> = diagnostics.map { diagnostic ->
        val location = diagnostic.location ?: return@map diagnostic
        diagnostic.copy(location = SourceCode.Location(map(location.start), location.end?.let(::map)))
    }

    /** What to report when compiling [text] failed too, given the diagnostics of both compilations, both located in the user's text. */
    fun failed(first: List<ScriptDiagnostic>, second: List<ScriptDiagnostic>): List<ScriptDiagnostic> = failure(first, second)

    /** This rewrite with [more] insertions made too (none of them at an offset where this one inserts). */
    fun with(more: List<Insertion>): SnippetRewrite = if (more.isEmpty()) this else SnippetRewrite(original, insertions + more, failure)

    /** A position in [text] as one in the user's text; one inside an insertion is where the insertion was made. */
    private fun map(position: SourceCode.Position): SourceCode.Position {
        var offset = rewritten.offset(position.line, position.col)
        var shift = 0
        for (insertion in insertions) {
            val start = insertion.offset + shift
            if (offset < start) break
            if (offset < start + insertion.text.length) {
                offset = start
                break
            }
            shift += insertion.text.length
        }
        val (line, column) = original.position(offset - shift)
        return SourceCode.Position(line, column)
    }

    companion object {
        /**
         * A rewrite that avoids the [fixed] errors of the first compilation: if it fails too, the user's other errors
         * are reported as the compiler found them in the user's text, and failing those, why the rewrite failed.
         */
        fun avoiding(original: SourceText, insertions: List<Insertion>, fixed: Set<ScriptDiagnostic>): SnippetRewrite =
            SnippetRewrite(original, insertions) { first, second ->
                val remaining = first.filter { it !in fixed }
                if (remaining.any { it.severity >= ScriptDiagnostic.Severity.ERROR }) remaining else second
            }
    }
}
