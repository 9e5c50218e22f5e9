package org.kotlinllm.script.host

import kotlinx.coroutines.Dispatchers
import org.kotlinllm.script.ScriptProperty
import org.kotlinllm.script.ScriptSession
import org.kotlinllm.script.completion.Completion
import org.kotlinllm.script.completion.Inspection
import org.kotlinllm.script.internal.routing.InputRouting
import org.kotlinllm.script.internal.routing.RunClock
import org.kotlinllm.script.internal.session.ProvidedProperties

/**
 * A [ScriptSession] for a host process (the Jupyter kernel, the Python API, through JPype): plain Java values in,
 * and out a stream of [HostEvent]s, what the snippets print and how each snippet ended, read by one thread with
 * [nextEvents]. Every snippet gets a number, and what its code prints is captured, never written to the process's
 * streams.
 */
public class HostSession private constructor(
    properties: List<ScriptProperty<*>>,
    settings: HostSettings,
) : AutoCloseable {

    /** Times the running snippet for [HostExecution.runMillis]. */
    private val clock = RunClock()
    private val events = HostEvents(settings.maxDisplayBytes, clock)

    init {
        // before the first snippet: a Scanner or BufferedReader keeps the System.in it was given
        InputRouting.install()
    }
    private val session = ScriptSession(properties, Dispatchers.Default, settings.configuration, events, clock)

    /** The number of the last snippet submitted. */
    public val lastSnippetNumber: Int get() = session.lastSnippetNumber

    /**
     * Compiles [code] as the next snippet would be compiled and waits for the outcome: the compilation's error, or a
     * [org.kotlinllm.script.ScriptResult.Value] of [Unit] with its warnings. Nothing runs and the session does not
     * change: nothing is declared or loaded, and the next snippet keeps its number. Waits for the snippets submitted
     * before it.
     */
    public fun check(code: String): HostOutcome {
        val number = lastSnippetNumber + 1 // as the session names it when it takes the check
        return HostOutcome.of(number, session.core.check(code).get(), cancelled = false)
    }

    /** Runs [code] as the next snippet, `snippet${lastSnippetNumber + 1}.kts`. */
    public fun submit(code: String): HostExecution = execution(code, null)

    /**
     * Runs [code] as `snippet$snippetNumber.kts`, after the snippets submitted before it; [snippetNumber] must exceed
     * [lastSnippetNumber], else [IllegalArgumentException].
     */
    public fun submit(code: String, snippetNumber: Int): HostExecution = execution(code, snippetNumber)

    /**
     * Runs [code] as `snippet$snippetNumber.kts` like `submit(code, snippetNumber)`; when [allowStdin], a read of
     * `System.in` by its code (its thread, its coroutines, the threads they start) sends an [InputRequestEvent] and
     * waits for [answerInput]. Otherwise such a read throws [org.kotlinllm.script.runtime.StdinNotAllowedException]
     * at once, as it does in the 1- and 2-argument forms.
     */
    public fun submit(code: String, snippetNumber: Int, allowStdin: Boolean): HostExecution {
        // a number that is not new is rejected below and must not change the allowance of the snippet holding it
        if (!allowStdin || snippetNumber <= lastSnippetNumber) return execution(code, snippetNumber)
        events.input.allow(snippetNumber, true)
        try {
            return execution(code, snippetNumber)
        } catch (e: Throwable) {
            events.input.allow(snippetNumber, false)
            throw e
        }
    }

    /**
     * Answers the [InputRequestEvent] [requestId] with the line [value] (without its line end; null: end of input,
     * a read then returns -1 and `readLine()` null). A request withdrawn (its snippet cancelled or ended) or unknown
     * is ignored.
     */
    public fun answerInput(requestId: Long, value: String?) {
        events.input.answer(requestId, value)
    }

    private fun execution(code: String, snippetNumber: Int?): HostExecution = HostExecution(
        session.core.submit(code, snippetNumber, skipsWhenCancelled = true),
        session.core,
        clock,
    )

    /**
     * From now on, when code the engine does not rewrite (a library, the JDK) calls `System.exit` or `Runtime.exit`,
     * a [ProcessExitEvent] is queued and the exit waits up to [timeoutMillis] for [exitReported], so that the host
     * can tell its client first. Without this call such an exit does not wait.
     */
    public fun reportExits(timeoutMillis: Long) {
        events.exitTimeoutMillis = timeoutMillis
    }

    /** The host has told its client of the [ProcessExitEvent]: the exit goes on. */
    public fun exitReported() {
        events.exitReported()
    }

    /**
     * Waits up to [timeoutMillis] for at least one event, then returns every event there is, in order (adjacent
     * [OutputEvent]s of the same snippet and stream merged); empty on timeout, and once the session is closed.
     */
    public fun nextEvents(timeoutMillis: Long): List<HostEvent> = events.next(timeoutMillis)

    /**
     * Completions at [cursor] (UTF-16 offsets) of [code]; from the session's start on: a request while the compiler
     * starts waits for it (bounded), else keywords and the provided properties, saying why (see [ScriptSession.complete]).
     */
    public fun complete(code: String, cursor: Int): Completion = session.complete(code, cursor)

    /** The declaration of the name at [cursor] of [code], and the current value of a property; null if unknown. */
    public fun inspect(code: String, cursor: Int): String? = session.inspect(code, cursor)

    /** [inspect] with how it was answered (see [ScriptSession.inspection]). */
    public fun inspection(code: String, cursor: Int): Inspection = session.inspection(code, cursor)

    /** Closes the session (see [ScriptSession.close]) and ends every wait in [nextEvents]. */
    override fun close() {
        session.close()
        events.close()
    }

    public companion object {
        /** A session whose properties are each typed as its value's class (nullable when null). */
        @JvmStatic
        public fun create(properties: Map<String, Any?>, settings: HostSettings): HostSession =
            HostSession(
                properties.map { (name, value) -> ScriptProperty(name, ProvidedProperties.typeOfValue(value), value) },
                settings,
            )
    }
}
