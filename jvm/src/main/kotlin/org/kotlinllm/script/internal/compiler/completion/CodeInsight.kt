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

    /**
     * Completes [WARM_UP_TEXTS] in turn for what the first completions read (the libraries' top-level names, the
     * compiler's classes, the JIT's code), yielding to anyone who waits for the compiler and once [yieldWhen] is
     * true; whether it got through all of them (null: a probe failed, a retry would too).
     */
    fun warmUp(yieldWhen: () -> Boolean): Boolean? {
        for (text in WARM_UP_TEXTS) {
            // a completion holding the compiler is waited for: it reads what the warm-up would
            val done = compiler.probe(text + FirCompletion.MARKER, LOCK_WAIT_MILLIS) { probe ->
                firCompletion.warmUp(probe) { yieldWhen() || compiler.othersWaiting() }
            }
            if (done != true) return done
        }
        return true
    }

    /** What the name at [offset] of [text] refers to, resolved as the next snippet (see [complete]). */
    fun inspect(text: String, offset: Int, waitMillis: Long): Inspected? =
        compiler.probe(text, waitMillis) { FirInspection.inspect(it, offset, libraryDocs) }

    private companion object {
        const val LOCK_WAIT_MILLIS = 5_000L

        /** A string's members and extensions read every name of the default imports; a list's, the collections' signatures. */
        val WARM_UP_TEXTS = listOf("\"\".", "listOf(1).")
    }
}
