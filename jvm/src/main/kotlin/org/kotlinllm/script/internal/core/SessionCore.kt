package org.kotlinllm.script.internal.core

import io.github.oshai.kotlinlogging.KotlinLogging
import kotlinx.coroutines.CoroutineDispatcher
import org.kotlinllm.script.completion.Completion
import org.kotlinllm.script.completion.Inspection
import org.kotlinllm.script.dependencies.DependencySettings
import org.kotlinllm.script.internal.compiler.completion.CodeInsight
import org.kotlinllm.script.internal.jupyterapi.JupyterApi
import org.kotlinllm.script.internal.jupyterapi.linkage.IntegrationLinkage
import org.kotlinllm.script.internal.pipeline.EvaluationWindow
import org.kotlinllm.script.internal.pipeline.RunResult
import org.kotlinllm.script.internal.pipeline.SnippetPipeline
import org.kotlinllm.script.internal.pipeline.SnippetRun
import org.kotlinllm.script.internal.report.SnippetSources
import org.kotlinllm.script.internal.report.StackTraceRenderer
import org.kotlinllm.script.internal.routing.DisplayTarget
import org.kotlinllm.script.internal.routing.InputHost
import org.kotlinllm.script.internal.routing.OutputRouting
import org.kotlinllm.script.internal.routing.RunClock
import org.kotlinllm.script.internal.routing.SessionDisplay
import org.kotlinllm.script.internal.routing.StopGate
import org.kotlinllm.script.internal.routing.UncaughtErrors
import org.kotlinllm.script.internal.session.ExitWatch
import org.kotlinllm.script.internal.session.ProcessExit
import org.kotlinllm.script.internal.session.ProvidedProperties
import org.kotlinllm.script.internal.session.ProvidedProperty
import org.kotlinllm.script.internal.session.SessionScope
import org.kotlinllm.script.internal.session.SessionSymbols
import org.kotlinllm.script.runtime.OutputTarget
import org.kotlinllm.script.runtime.ThreadErrorReporter
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

private val logger = KotlinLogging.logger {}

/**
 * The implementation of a session behind the public `ScriptSession` and the host's `HostSession`: its thread and
 * task queue ([SessionThread]), the snippets' numbers, their cancellation, and what a host learns of them. Each
 * snippet takes the stages of its [SnippetPipeline], created on the session's thread with the compiler.
 */
internal class SessionCore(
    properties: List<ProvidedProperty>,
    dispatcher: CoroutineDispatcher,
    settings: DependencySettings,
    /** A host that captures what the snippets print and follows each snippet; null prints to the process's streams. */
    private val host: SessionHost?,
    /** Times each snippet's run, for a host that limits it. */
    private val clock: RunClock,
) : AutoCloseable {

    private val id: Long
    private val sources = SnippetSources()
    private val stackTraces = StackTraceRenderer(sources)
    private val symbols = SessionSymbols()

    /** The session's display functions and renderers; its displays go to a host that shows them. */
    private val display = SessionDisplay(host as? DisplayTarget) { frame ->
        "${frame.fileName}:${sources.snippetLine(frame.className, frame.lineNumber)}"
    }
    private val completer = Completer(symbols, properties.mapTo(HashSet()) { it.name }, ::startedInsight)
    private val scope: SessionScope
    private val thread: SessionThread

    /** Counted down once the compiler started and declared the provided properties, or failed to. */
    private val compilerStart = CountDownLatch(1)
    private val lock = Object()

    /** Where a host may stop the session's thread: its evaluations only. */
    private val stopGate = StopGate()
    private val lastNumber = AtomicInteger(0)

    /** The snippet being evaluated, which cancellation may interrupt; guarded by [lock]. */
    private var evaluating: SnippetTicket? = null

    /** The snippet running on the session's thread; guarded by [lock]. */
    private var current: SnippetTicket? = null

    @Volatile
    private var pipeline: SnippetPipeline? = null

    /** JetBrains' kernel API of the session, once its compiler started. */
    @Volatile
    private var jupyter: JupyterApi? = null

    /** Why the session could not start its compiler or declare its properties; every snippet then reports it. */
    @Volatile
    private var startFailure: String? = null

    init {
        ProvidedProperties.validate(properties)
        id = ProvidedProperties.register(properties)
        if (host != null) OutputRouting.install()
        UncaughtErrors.install()
        ExitWatch.install()
        ExitWatch.listen(id) { exit, number -> host?.let { tellExit(it, exit, number) } == true }
        val threadErrors = ThreadErrorReporter { thread, error ->
            if (!stackTraces.hasSnippetFrames(error)) return@ThreadErrorReporter false
            printError("Exception in thread \"${thread.name}\": ${stackTraces.render(error)}")
            true
        }
        scope = SessionScope(dispatcher, symbols, display, host, (host as? InputHost)?.input, threadErrors) { error ->
            printError("Exception in a launched coroutine: ${stackTraces.render(error)}")
        }
        scope.context.open()
        thread = SessionThread("kotlin-script-session-$id", scope.context, onEnd = {
            jupyter?.shutdown()
            pipeline?.close()
        })
        val prelude = if (properties.isEmpty()) "Unit" else ProvidedProperties.prelude(id, properties)
        thread.submit { start(settings, prelude) }
    }

    /** Starts the compiler on the session's thread and declares the provided properties with [prelude]. */
    private fun start(settings: DependencySettings, prelude: String) {
        try {
            val window = object : EvaluationWindow {
                override fun starts() = evaluationStarts()

                override fun ends() = evaluationEnds()
            }
            val renderValue = if (host is DisplayTarget) display::valueBundle else null
            val started = SnippetPipeline(
                SessionCore::class.java.classLoader, settings, symbols, sources, stackTraces, window, stopGate, clock, renderValue,
            )
            pipeline = started
            val result = started.run("session_$id.kts", prelude).result
            if (result is RunResult.Error) startFailure = "the provided properties could not be declared:\n${result.message}"
            // a warm spare compiles a first snippet here, unnumbered and before the hooks: its user's first cell stays 1
            if (SPARE_WARM_UP && startFailure == null) started.run("warmup_$id.kts", SPARE_WARM_UP_SNIPPET)
            attachJupyterApi(started)
        } catch (e: Throwable) {
            logger.error(e) { "session $id could not start its compiler" }
            startFailure = "the Kotlin compiler could not be started: $e"
        } finally {
            compilerStart.countDown()
        }
        val insight = pipeline?.insight
        if (WARM_UP_COMPLETION && startFailure == null && insight != null) thread.warmUp(WARM_UP_IDLE_MILLIS, insight::warmUp)
    }

    /** JetBrains' kernel API on [started]: its hooks on every cell, its `notebook` for the snippets. */
    private fun attachJupyterApi(started: SnippetPipeline) {
        val api = JupyterApi(started, display, symbols, IntegrationLinkage::missing)
        started.hooks = api.hooks
        scope.context.notebook = api.notebook
        jupyter = api
    }

    /**
     * The compiler's insight once it started, waiting for its start at most [waitMillis]; null when it did not start
     * within that time ([StartState.STARTING]) or failed ([StartState.FAILED]).
     */
    private fun startedInsight(waitMillis: Long): Pair<CodeInsight?, StartState> {
        if (!compilerStart.await(waitMillis, TimeUnit.MILLISECONDS)) return null to StartState.STARTING
        val insight = pipeline?.insight
        return if (startFailure == null && insight != null) insight to StartState.STARTED else null to StartState.FAILED
    }

    /** The number of the last snippet submitted. */
    val lastSnippetNumber: Int get() = lastNumber.get()

    /**
     * Submits [code] as `snippet$snippetNumber.kts` (the next number when null), blank or not; the number must exceed
     * [lastSnippetNumber]. A host's snippet [skipsWhenCancelled]: cancelled while it compiles, it does not run.
     */
    fun submit(code: String, snippetNumber: Int?, skipsWhenCancelled: Boolean): SnippetTicket {
        val number = snippetNumber?.also(::take) ?: lastNumber.incrementAndGet()
        val ticket = SnippetTicket(number, skipsWhenCancelled, ::cancel)
        thread.submit { runSnippet(ticket, code) }
        return ticket
    }

    private fun take(number: Int) {
        while (true) {
            val last = lastNumber.get()
            require(number > last) { "snippet number $number must be greater than $last, the last one used" }
            if (lastNumber.compareAndSet(last, number)) return
        }
    }

    private fun runSnippet(ticket: SnippetTicket, code: String) {
        if (ticket.cancelled) {
            ticket.settle(null)
            host?.snippetSettled(ticket.number, null, cancelled = true)
            return
        }
        synchronized(lock) { current = ticket }
        host?.snippetStarts(ticket.number)
        clock.start(ticket.number)
        ExitWatch.starts(id, ticket.number)
        val fileName = "snippet${ticket.number}.kts"
        var thrown: Throwable? = null
        val run = try {
            onPipeline(fileName, onFailure = { thrown = it }) { it.run(fileName, code) }
        } finally {
            ticket.ranMillis = clock.stop()
            ExitWatch.ends(id)
            synchronized(lock) { current = null }
        }
        // the libraries' interruption callbacks, on the session's thread before the next snippet
        if (ticket.cancelled) jupyter?.interrupted()
        ticket.settle(run)
        host?.snippetSettled(ticket.number, run, ticket.cancelled)
        thread.settled(run.thrown ?: thrown)
    }

    /**
     * [action] on the pipeline for the snippet [fileName]; the start's failure, or the engine's own failure (also given
     * to [onFailure]), as the snippet's compilation error.
     */
    private inline fun onPipeline(
        fileName: String,
        onFailure: (Throwable) -> Unit = {},
        action: (SnippetPipeline) -> SnippetRun,
    ): SnippetRun = try {
        startFailure?.let { SnippetRun.compilationError("$fileName: error: $it") }
            ?: action(checkNotNull(pipeline) { "the session's compiler did not start" })
    } catch (e: Throwable) {
        onFailure(e)
        logger.error(e) { "$fileName failed in the engine" }
        SnippetRun.compilationError("$fileName: error: the engine failed: $e")
    }

    /**
     * Compiles [code] on the session's thread as the next snippet would be compiled (as
     * `snippet${lastSnippetNumber + 1}.kts`, after the snippets submitted before it), without running it or changing
     * the session: see [SnippetPipeline.check]. The next snippet keeps its number.
     */
    fun check(code: String): CompletableFuture<SnippetRun> {
        val fileName = "snippet${lastNumber.get() + 1}.kts"
        if (code.isBlank()) return CompletableFuture.completedFuture(SnippetRun.UNIT)
        val checked = CompletableFuture<SnippetRun>()
        thread.submit {
            checked.complete(onPipeline(fileName) { it.check(fileName, code) })
        }
        return checked
    }

    /** Whether the compiled snippet may run: not when a host's cancellation came while it compiled. */
    private fun evaluationStarts(): Boolean {
        synchronized(lock) {
            val ticket = current
            if (ticket != null && ticket.cancelled && ticket.skipsWhenCancelled) return false
            // a cancellation of the snippet's compilation must not interrupt its evaluation
            Thread.interrupted()
            evaluating = ticket
            scope.evaluationStarts()
            return true
        }
    }

    private fun evaluationEnds() {
        synchronized(lock) {
            evaluating = null
            scope.evaluationEnds(thread.current)
            // the evaluation's cancellation must not reach the next task
            Thread.interrupted()
        }
    }

    private fun cancel(ticket: SnippetTicket) {
        synchronized(lock) {
            if (evaluating !== ticket) return
            logger.debug { "cancelling the snippet being evaluated in session $id" }
            scope.cancelEvaluation(thread.current)
        }
    }

    /** The monitor a host holds from [stoppableThread] until its stop of that thread returned. */
    val stopMonitor: Any get() = stopGate

    /**
     * The session's thread if it evaluates [ticket]'s snippet, for a host to stop it (its cancellation was ignored);
     * the caller holds [stopMonitor].
     */
    fun stoppableThread(ticket: SnippetTicket): Thread? {
        synchronized(lock) { if (evaluating !== ticket) return null }
        return stopGate.runningThread()
    }

    /** Whether [ticket]'s snippet is being evaluated (compiled, not settled). */
    fun isEvaluating(ticket: SnippetTicket): Boolean = synchronized(lock) { evaluating === ticket }

    /** The session's thread while it runs [ticket]'s snippet (compiling or evaluating it), else null. */
    fun threadOf(ticket: SnippetTicket): Thread? = synchronized(lock) { thread.current.takeIf { current === ticket } }

    /** The top [limit] of a running thread's [frames], a snippet's named as in its errors. */
    fun topFrames(frames: Array<StackTraceElement>, limit: Int): List<String> = stackTraces.topFrames(frames, limit)

    private fun tellExit(host: SessionHost, exit: ProcessExit, number: Int?): Boolean = host.processExits(
        exit,
        number,
        exit.caller.takeWhile { !stackTraces.isSnippetFrame(it) },
        stackTraces.renderFrames(exit.caller),
    )

    private fun printError(text: String) {
        host?.write(OutputTarget.STDERR, "$text\n") ?: System.err.println(text)
    }

    /** See `ScriptSession.complete`. */
    fun complete(code: String, cursor: Int): Completion = completer.complete(code, cursor)

    /** See `ScriptSession.inspection`. */
    fun inspect(code: String, cursor: Int): Inspection = completer.inspect(code, cursor)

    /** Cancels launched coroutines and releases the compiler and the session's thread. */
    override fun close() {
        if (!thread.close()) return
        scope.cancel()
        scope.context.close()
        ExitWatch.stopListening(id)
        ProvidedProperties.unregister(id)
    }

    private companion object {
        /** `-Dkotlinllm.completion.warmUp=false` leaves the completion's warm-up out (to measure what it saves). */
        val WARM_UP_COMPLETION = System.getProperty("kotlinllm.completion.warmUp") != "false"

        /**
         * A warm spare (`KOTLIN_LLM_SPARE=1`, set by the pool that starts it) compiles [SPARE_WARM_UP_SNIPPET] when
         * it starts: lambdas and collections, what a first cell most often needs, without a declaration.
         */
        val SPARE_WARM_UP = System.getenv("KOTLIN_LLM_SPARE") == "1"
        const val SPARE_WARM_UP_SNIPPET = "listOf(3, 1, 2).map { it * 2 }.filter { it > 1 }.sorted().sum()"

        /** How long the session idles before the warm-up starts: the next cell of a notebook run top to bottom comes sooner. */
        const val WARM_UP_IDLE_MILLIS = 300L
    }
}
