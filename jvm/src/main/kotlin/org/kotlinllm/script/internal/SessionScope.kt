package org.kotlinllm.script.internal

import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.asContextElement
import kotlinx.coroutines.runBlocking
import org.kotlinllm.script.ScriptScope
import kotlin.coroutines.CoroutineContext

/**
 * The [ScriptScope] of one session: `launch` runs on [dispatcher] under a supervisor job that closing the session
 * cancels; [await] runs on the session's thread under the job of the running snippet, which cancellation cancels.
 */
internal class SessionScope(
    dispatcher: CoroutineDispatcher,
    output: OutputTarget?,
    reportUncaught: (Throwable) -> Unit,
) : ScriptScope() {

    private val supervisor = SupervisorJob()
    private val outputElement: CoroutineContext = (output?.let { OutputRouting.current.asContextElement(it) }
        ?: kotlin.coroutines.EmptyCoroutineContext) + currentScope.asContextElement(this)

    override val coroutineContext: CoroutineContext = supervisor + dispatcher + outputElement +
        CoroutineName("kotlin-llm snippet") + CoroutineExceptionHandler { _, error -> reportUncaught(error) }

    /** The job of the snippet being evaluated; [await] runs as its child. */
    @Volatile
    internal var snippetJob: Job? = null

    override fun <T> await(block: suspend CoroutineScope.() -> T): T {
        val job = snippetJob ?: Job()
        return runBlocking(outputElement + job + CoroutineName("kotlin-llm await")) { block() }
    }

    fun cancel() {
        supervisor.cancel()
        live -= this
    }

    /** Makes this the scope of the calling thread (the session's own). */
    fun bindToCurrentThread() {
        currentScope.set(this)
        live += this
    }

    companion object {
        private val currentScope = ThreadLocal<SessionScope?>()
        private val live = java.util.concurrent.CopyOnWriteArraySet<SessionScope>()

        /** The scope of the session running the calling code; on other threads the only live one. */
        fun current(): SessionScope = currentScope.get() ?: live.singleOrNull()
            ?: throw IllegalStateException(
                "await, launch and async need the ScriptScope of a session: call them from a snippet, its coroutines, " +
                    "or pass them scriptScope",
            )
    }
}
