package org.kotlinllm.script.host

import org.kotlinllm.script.ScriptExecution

/** A snippet submitted with [HostSession.submit]; its end comes as a [SettledEvent] of [snippetNumber]. */
public class HostExecution internal constructor(
    public val snippetNumber: Int,
    private val execution: ScriptExecution,
) {
    /**
     * The spec's cancellation: cancels the snippet's `await` coroutines and interrupts the session's thread, or keeps
     * it from starting; does nothing once it has settled.
     */
    public fun cancel() {
        execution.cancel(true)
    }

    /** Whether [cancel] came before the snippet settled. */
    public val isCancelled: Boolean get() = execution.isCancelled

    override fun toString(): String = "HostExecution(snippet$snippetNumber.kts)"
}
