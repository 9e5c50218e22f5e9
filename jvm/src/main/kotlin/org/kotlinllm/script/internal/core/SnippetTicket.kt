package org.kotlinllm.script.internal.core

import org.kotlinllm.script.internal.pipeline.SnippetRun
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicReference

/**
 * A snippet submitted to a [SessionCore]: its [number] (`N` of `snippetN.kts`), whether it was cancelled before it
 * settled, and [settled] once it finished. A host's snippet [skipsWhenCancelled]: cancelled while it compiles, it does
 * not run.
 */
internal class SnippetTicket(val number: Int, val skipsWhenCancelled: Boolean, private val onCancel: (SnippetTicket) -> Unit) {

    private enum class State { OPEN, CANCELLED, SETTLED }

    private val state = AtomicReference(State.OPEN)

    /** Whether [cancel] came before the snippet settled. */
    val cancelled: Boolean get() = state.get() == State.CANCELLED

    /** Milliseconds the snippet ran, once it has finished (see `RunClock`); -1 before. */
    @Volatile
    var ranMillis: Long = -1

    /** Completes when the snippet has finished with its run, or with null when it was cancelled before it started. */
    val settled: CompletableFuture<SnippetRun?> = CompletableFuture()

    /** Cancels the snippet: it does not start, or its evaluation is cancelled (see [SessionCore]); false once settled. */
    fun cancel(): Boolean {
        if (!state.compareAndSet(State.OPEN, State.CANCELLED)) return false
        onCancel(this)
        return true
    }

    /** The snippet finished with [run] (null: it never started); a later [cancel] does nothing. */
    fun settle(run: SnippetRun?) {
        state.compareAndSet(State.OPEN, State.SETTLED)
        settled.complete(run)
    }
}
