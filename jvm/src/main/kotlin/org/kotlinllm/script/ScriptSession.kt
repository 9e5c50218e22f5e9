package org.kotlinllm.script

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import java.util.concurrent.CompletableFuture

/**
 * A stateful session of Kotlin snippets, like a Kotlin notebook: see the project's specification.
 */
public class ScriptSession(
    properties: List<ScriptProperty<*>> = emptyList(),
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    configuration: SessionConfiguration = SessionConfiguration(),
) : AutoCloseable {

    /** What the snippets print, when [SessionConfiguration.captureOutput] is set. */
    public val output: SessionOutput = SessionOutput()

    /** The number of the last snippet executed (the next one is `snippet${lastSnippetNumber + 1}.kts`). */
    public val lastSnippetNumber: Int get() = TODO()

    /** Compiles and evaluates [code] on the session's thread, after the snippets executed before it. */
    public suspend fun execute(code: String): ScriptResult = TODO()

    /** [execute] for Java callers: `cancel(true)` on the returned future is the cancellation of [execute]. */
    public fun executeAsync(code: String): ScriptExecution = TODO()

    /** Like [executeAsync], naming the snippet `snippet$snippetNumber.kts`; the number must exceed [lastSnippetNumber]. */
    public fun executeAsync(code: String, snippetNumber: Int): ScriptExecution = TODO()

    /** Cancels launched coroutines and releases the compiler and the session's thread. */
    override fun close(): Unit = TODO()

    public companion object {
        /** A session for Java and Python callers: each property typed as its value's class (nullable when null). */
        @JvmStatic
        public fun create(properties: Map<String, Any?>, configuration: SessionConfiguration): ScriptSession = TODO()
    }
}

/** Builds a session with the properties of [properties], like `ScriptSession { "greeting" provides "Hello" }`. */
public fun ScriptSession(
    dispatcher: CoroutineDispatcher = Dispatchers.Default,
    configuration: SessionConfiguration = SessionConfiguration(),
    properties: ScriptPropertiesBuilder.() -> Unit,
): ScriptSession = ScriptSession(ScriptPropertiesBuilder().apply(properties).properties.toList(), dispatcher, configuration)

/**
 * A snippet submitted with [ScriptSession.executeAsync]. Completes with its result; `cancel(true)` cancels it
 * as cancelling the caller of [ScriptSession.execute] does, and [settled] then still completes with the result of
 * the cancelled snippet (e.g. the `InterruptedException` it got), or with `null` if it never started.
 */
public class ScriptExecution internal constructor() : CompletableFuture<ScriptResult>() {
    /** Completes when the snippet has finished, cancelled or not. */
    public val settled: CompletableFuture<ScriptResult?> = CompletableFuture()
}
