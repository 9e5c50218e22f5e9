package org.kotlinllm.script.internal.session

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.runBlocking
import org.kotlinllm.script.runtime.DeclarationListing
import org.kotlinllm.script.runtime.DisplaySink
import org.kotlinllm.script.runtime.InputSource
import org.kotlinllm.script.runtime.Interruption
import org.kotlinllm.script.runtime.OutputTarget
import org.kotlinllm.script.runtime.ScriptScope
import org.kotlinllm.script.runtime.SessionContext
import org.kotlinllm.script.runtime.ThreadErrorReporter
import kotlin.coroutines.CoroutineContext

/**
 * The [ScriptScope] of one session: `launch` runs on [dispatcher] under a supervisor job that closing the session
 * cancels; [await] runs on the session's thread under the job of the running snippet, which cancellation cancels.
 * Both carry the session's [context].
 */
internal class SessionScope(
    dispatcher: CoroutineDispatcher,
    declarations: DeclarationListing,
    display: DisplaySink,
    output: OutputTarget?,
    input: InputSource?,
    threadErrors: ThreadErrorReporter,
    reportUncaught: (Throwable) -> Unit,
) : ScriptScope() {

    /** The session as its code sees it, on the session's thread, the threads it starts and in its coroutines. */
    val context: SessionContext = SessionContext(this, declarations, display, output, input, threadErrors)

    private val supervisor = SupervisorJob()

    override val coroutineContext: CoroutineContext = supervisor + dispatcher + context.element +
        CoroutineName("kotlin-llm snippet") + CoroutineExceptionHandler { _, error -> reportUncaught(error) }

    /** The job of the snippet being evaluated; [await] runs as its child. */
    @Volatile
    private var snippetJob: Job? = null

    override fun <T> await(block: suspend CoroutineScope.() -> T): T {
        val job = snippetJob ?: Job()
        return runBlocking(context.element + job + CoroutineName("kotlin-llm await")) { block() }
    }

    /** A snippet's evaluation starts on the session's thread: its [await]s run under a job of their own. */
    fun evaluationStarts() {
        snippetJob = Job()
    }

    /** The evaluation on [thread] ended: a cancellation requested for it must not reach the next one. */
    fun evaluationEnds(thread: Thread) {
        snippetJob = null
        Interruption.clear(thread)
    }

    /** Cancels the evaluation running on [thread]: its [await]s, a blocking call, and a busy loop. */
    fun cancelEvaluation(thread: Thread) {
        // requested first, so that code seeing the cancelled job also sees the request (runSuspending)
        Interruption.request(thread)
        snippetJob?.cancel()
        thread.interrupt()
    }

    fun cancel() {
        supervisor.cancel()
    }
}
