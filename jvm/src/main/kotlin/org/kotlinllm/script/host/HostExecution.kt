package org.kotlinllm.script.host

import org.kotlinllm.script.internal.core.SessionCore
import org.kotlinllm.script.internal.core.SnippetTicket
import org.kotlinllm.script.internal.report.NotRun
import org.kotlinllm.script.internal.routing.RunClock
import org.kotlinllm.script.runtime.SnippetInterruptedError
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

/** A snippet submitted with [HostSession.submit]; its end comes as a [SettledEvent] of [snippetNumber]. */
public class HostExecution internal constructor(
    private val execution: SnippetTicket,
    private val session: SessionCore,
    private val clock: RunClock,
) {
    /** The snippet's number, `N` of `snippetN.kts`. */
    public val snippetNumber: Int get() = execution.number

    /**
     * The spec's cancellation (cancels the snippet's `await` coroutines and interrupts the session's thread, or keeps
     * it from starting), except that a snippet still compiling is not run; does nothing once it has settled.
     */
    public fun cancel() {
        execution.cancel()
    }

    /** Whether [cancel] came before the snippet settled. */
    public val isCancelled: Boolean get() = execution.cancelled

    /** Waits up to [timeoutMillis] for the snippet to settle; whether it has. */
    public fun awaitSettled(timeoutMillis: Long): Boolean = try {
        execution.settled.get(timeoutMillis, TimeUnit.MILLISECONDS)
        true
    } catch (_: TimeoutException) {
        false
    }

    /**
     * Milliseconds the snippet has run so far, for a host that limits it: compiling and evaluating, from when the
     * session's thread took it up, without its waits for its `@file:DependsOn` dependencies to resolve and for its
     * reads of `System.in` to be answered; 0 before it starts. Stays at its last value once it has settled.
     */
    public val runMillis: Long get() = execution.ranMillis.takeIf { it >= 0 } ?: clock.millis(snippetNumber)

    /** Whether the snippet is being evaluated: compiled, running its code, not settled. */
    public val isEvaluating: Boolean get() = session.isEvaluating(execution)

    /** The monitor a host holds from [prepareStop] until its StopThread call returned. */
    public val stopMonitor: Any get() = session.stopMonitor

    /**
     * For a host that stops the session's thread when a cancelled snippet ignores its interrupt (a loop in JDK or
     * library code), with the JVM tool interface's StopThread; the caller holds [stopMonitor]. When this snippet is
     * being evaluated, sets [StopTarget] to the session's thread and a [SnippetInterruptedError] naming where it runs,
     * and returns true; otherwise (not started, compiling, settled) leaves it and returns false.
     */
    public fun prepareStop(): Boolean {
        val thread = session.stoppableThread(execution) ?: return false
        val frames = thread.stackTrace
        val where = session.topFrames(frames, 1).firstOrNull()
        val message = if (where == null) STOPPED else "$STOPPED in $where$INCONSISTENT"
        StopTarget.thread = thread
        StopTarget.error = SnippetInterruptedError(message).apply { stackTrace = frames }
        return true
    }

    /**
     * Where the session's thread is while it runs this snippet (compiling or evaluating it): its top [limit] frames,
     * a snippet's as `check(snippet3.kts:2)`; empty otherwise.
     */
    public fun topFrames(limit: Int): List<String> {
        val thread = session.threadOf(execution) ?: return emptyList()
        val frames = session.topFrames(thread.stackTrace, limit)
        return if (session.threadOf(execution) === thread) frames else emptyList()
    }

    override fun toString(): String = "HostExecution(snippet$snippetNumber.kts)"

    public companion object {
        /**
         * The `evalue` of a snippet [cancel]led while it compiled ([HostOutcome.notRun]): for a host that ends the
         * snippet's run before its compilation ends, and says the same.
         */
        public const val NOT_RUN: String = NotRun.MESSAGE

        private const val STOPPED = "the snippet ignored the interrupt and was stopped"
        private const val INCONSISTENT = "; objects it was changing there may be left inconsistent"
    }
}
