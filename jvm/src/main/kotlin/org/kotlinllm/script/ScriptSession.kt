package org.kotlinllm.script

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.future.await
import org.kotlinllm.script.completion.Completion
import org.kotlinllm.script.completion.Inspection
import org.kotlinllm.script.internal.core.SessionCore
import org.kotlinllm.script.internal.core.SessionHost
import org.kotlinllm.script.internal.routing.RunClock
import org.kotlinllm.script.internal.session.ProvidedProperty
import java.util.concurrent.CancellationException

/**
 * A stateful session of Kotlin snippets, like a Kotlin notebook: the declarations of a snippet stay visible to the
 * snippets executed after it. Every snippet is compiled by the K2 REPL compiler against the whole classpath of the
 * host and evaluated on the session's own thread, one after another; see the project's specification.
 *
 * @param properties provided to the snippets by name and type; invalid ones are rejected with
 *   [IllegalArgumentException].
 * @param dispatcher where the coroutines started with `launch` run.
 */
public class ScriptSession internal constructor(
    properties: List<ScriptProperty<*>>,
    dispatcher: CoroutineDispatcher,
    configuration: SessionConfiguration,
    /** A host that captures what the snippets print and follows each snippet; null prints to the process's streams. */
    host: SessionHost?,
    /** Times each snippet's run, for a host that limits it. */
    clock: RunClock = RunClock(),
) : AutoCloseable {

    public constructor(
        properties: List<ScriptProperty<*>> = emptyList(),
        dispatcher: CoroutineDispatcher = Dispatchers.Default,
        configuration: SessionConfiguration = SessionConfiguration(),
    ) : this(properties, dispatcher, configuration, null)

    /** The implementation, which a host drives beyond this API (numbered snippets, stops, checks). */
    internal val core: SessionCore = SessionCore(
        properties.map { ProvidedProperty(it.name, it.type, it.value) },
        dispatcher,
        configuration.dependencySettings(),
        host,
        clock,
    )

    /** The number of the last snippet executed (the next one is `snippet${lastSnippetNumber + 1}.kts`). */
    public val lastSnippetNumber: Int get() = core.lastSnippetNumber

    /**
     * Compiles and evaluates [code] on the session's thread, after the snippets executed before it. Cancelling the
     * caller cancels the coroutines of `await` and interrupts the session's thread.
     */
    public suspend fun execute(code: String): ScriptResult {
        val execution = executeAsync(code)
        try {
            return execution.await()
        } catch (e: CancellationException) {
            execution.cancel(true)
            throw e
        }
    }

    /** [execute] for Java callers: `cancel(true)` on the returned future is the cancellation of [execute]. */
    public fun executeAsync(code: String): ScriptExecution =
        if (code.isBlank()) ScriptExecution.completed(ScriptResult.Value(Unit)) else ScriptExecution(core.submit(code, null, false))

    /**
     * Completions at [cursor] (a UTF-16 offset) of [code], by the static types the K2 compiler finds in the session's
     * snippets and [code] up to the cursor: after a dot the members and extensions of the receiver's type, else the
     * names in scope, named arguments and keywords. Changes nothing of the session; may be called on any thread, also
     * while a snippet runs. Before the compiler is up, or while it stays busy, the names the session declared.
     */
    public fun complete(code: String, cursor: Int): Completion = core.complete(code, cursor)

    /** The declaration of the name at [cursor] of [code], and the current value of a property; null if unknown. */
    public fun inspect(code: String, cursor: Int): String? = core.inspect(code, cursor).text

    /** [inspect] with how it was answered: by type or from names, and after how long a wait for the compiler. */
    public fun inspection(code: String, cursor: Int): Inspection = core.inspect(code, cursor)

    /** Cancels launched coroutines and releases the compiler and the session's thread. */
    override fun close() {
        core.close()
    }
}

/** Builds a session with the properties of [properties], like `ScriptSession { "greeting" provides "Hello" }`. */
public fun ScriptSession(
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    configuration: SessionConfiguration = SessionConfiguration(),
    properties: ScriptPropertiesBuilder.() -> Unit,
): ScriptSession = ScriptSession(ScriptPropertiesBuilder().apply(properties).properties.toList(), dispatcher, configuration)
