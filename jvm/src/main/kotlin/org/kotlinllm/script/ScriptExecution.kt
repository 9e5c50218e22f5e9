package org.kotlinllm.script

import org.kotlinllm.script.internal.core.SnippetTicket
import java.util.concurrent.CompletableFuture

/**
 * A snippet submitted with [ScriptSession.executeAsync]. Completes with its result; `cancel(true)` cancels it
 * as cancelling the caller of [ScriptSession.execute] does, and [settled] then still completes with the result of
 * the cancelled snippet (e.g. the `InterruptedException` it got), or with `null` if it never started.
 */
public class ScriptExecution internal constructor(
    /** The snippet in the session's queue; null for a blank snippet, which is not run. */
    internal val ticket: SnippetTicket?,
) : CompletableFuture<ScriptResult>() {

    /** The snippet's number, `N` of `snippetN.kts`; 0 for a blank snippet. */
    internal val snippetNumber: Int get() = ticket?.number ?: 0

    /** Completes when the snippet has finished, cancelled or not. */
    public val settled: CompletableFuture<ScriptResult?> = CompletableFuture()

    init {
        ticket?.settled?.thenAccept { run ->
            val result = run?.result?.let(::ScriptResult)
            if (result != null) complete(result)
            settled.complete(result)
        }
    }

    override fun cancel(mayInterruptIfRunning: Boolean): Boolean {
        val cancelled = super.cancel(mayInterruptIfRunning)
        if (cancelled) ticket?.cancel()
        return cancelled
    }

    internal companion object {
        fun completed(result: ScriptResult): ScriptExecution = ScriptExecution(null).also {
            it.complete(result)
            it.settled.complete(result)
        }
    }
}
