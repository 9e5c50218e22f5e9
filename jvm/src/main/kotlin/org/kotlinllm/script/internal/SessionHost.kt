package org.kotlinllm.script.internal

/**
 * What a host embedding the engine (the `host` package) learns of a session beyond the spec's API: what its code
 * prints ([OutputTarget]), and each numbered snippet as it starts and settles. Called on the session's thread.
 */
internal interface SessionHost : OutputTarget {

    /** Snippet [number] starts: it is compiled, then evaluated. */
    fun snippetStarts(number: Int)

    /**
     * Snippet [number] has finished; [run] is null when it was cancelled before it started. [cancelled] tells whether
     * its cancellation came before it settled.
     */
    fun snippetSettled(number: Int, run: SnippetRun?, cancelled: Boolean)
}
