package org.kotlinllm.script.internal.compiler.completion

import org.kotlinllm.script.internal.compiler.ReplCompilerHost

/** Completion and inspection of a text as the next snippet, read from the compiler's resolution of it. */
internal class CodeInsight(private val compiler: ReplCompilerHost) {
    private val firCompletion = FirCompletion(compiler.history)
    private val libraryDocs = LibraryDocs(compiler.project)

    /**
     * Completions at the end of [text] (which ends with [FirCompletion.MARKER]) of names starting with [prefix]; null
     * when the compiler stayed busy for [waitMillis] or the resolution failed.
     */
    fun complete(text: String, prefix: String, waitMillis: Long): List<Candidate>? =
        compiler.probe(text, waitMillis) { firCompletion.candidates(it, prefix) }

    /** What the name at [offset] of [text] refers to, resolved as the next snippet (see [complete]). */
    fun inspect(text: String, offset: Int, waitMillis: Long): Inspected? =
        compiler.probe(text, waitMillis) { FirInspection.inspect(it, offset, libraryDocs) }
}
