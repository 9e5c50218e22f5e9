package org.kotlinllm.script.internal.core

import org.kotlinllm.script.internal.pipeline.SnippetRun
import org.kotlinllm.script.internal.session.ProcessExit
import org.kotlinllm.script.runtime.OutputTarget

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

    /**
     * Code that is not the snippets' ended the process ([exit]) while snippet [snippetNumber] ran (null: none ran):
     * [libraryFrames] are the caller's frames above the first of a snippet, [snippetFrames] the snippets' frames
     * rendered as in an error's report. Called on the shutdown hook's thread; the host may hold the exit back a while.
     * Returns whether the host was told (it then logs the exit itself).
     */
    fun processExits(exit: ProcessExit, snippetNumber: Int?, libraryFrames: List<StackTraceElement>, snippetFrames: String): Boolean =
        false
}
