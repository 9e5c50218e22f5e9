package org.kotlinllm.script

import io.github.oshai.kotlinlogging.KotlinLogging
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.future.await
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.internal.routing.DisplayTarget
import org.kotlinllm.script.internal.routing.InputHost
import org.kotlinllm.script.internal.routing.OutputRouting
import org.kotlinllm.script.internal.routing.RunClock
import org.kotlinllm.script.internal.routing.SessionDisplay
import org.kotlinllm.script.internal.routing.StopGate
import org.kotlinllm.script.internal.routing.UncaughtErrors
import org.kotlinllm.script.internal.session.ExitWatch
import org.kotlinllm.script.internal.session.MemoryReturn
import org.kotlinllm.script.internal.session.ProcessExit
import org.kotlinllm.script.internal.session.SessionSymbols
import org.kotlinllm.script.runtime.OutputTarget
import org.kotlinllm.script.runtime.ThreadErrorReporter
import java.util.concurrent.CancellationException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.LinkedBlockingDeque
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

private val logger = KotlinLogging.logger {}

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
    private val host: SessionHost?,
    /** Times each snippet's run, for a host that limits it. */
    private val clock: RunClock = RunClock(),
) : AutoCloseable {

    public constructor(
        properties: List<ScriptProperty<*>> = emptyList(),
        dispatcher: CoroutineDispatcher = Dispatchers.Default,
        configuration: SessionConfiguration = SessionConfiguration(),
    ) : this(properties, dispatcher, configuration, null)

    private val id: Long
    private val scope: SessionScope

    /** The session's display functions and renderers; its displays go to a host that shows them. */
    private val display = SessionDisplay(host as? DisplayTarget) { frame ->
        if (::runner.isInitialized) runner.locate(frame) else "${frame.fileName}:${frame.lineNumber}"
    }
    private val symbols = SessionSymbols()
    private val completer = Completer(symbols, properties.mapTo(HashSet()) { it.name }, ::startedRunner)

    /** Counted down once the compiler started and declared the provided properties, or failed to. */
    private val compilerStart = CountDownLatch(1)

    /** Tasks for the session's thread: submitted at the end, taken (and put back, by the warm-up) at the front. */
    private val tasks = LinkedBlockingDeque<Runnable>()

    /**
     * The session's thread, which runs its tasks; replaced by a fresh one after a snippet that overflowed the stack
     * (see [serve]). Replaced under [lock].
     */
    @Volatile
    private var thread: Thread

    /** Set on the session's thread by a snippet that overflowed the stack: [serve] then hands over to a fresh thread. */
    private var replaceThread = false

    /** Collects the heap after snippets that took much of it; used on the session's thread. */
    private val memory = MemoryReturn()
    private val lock = Object()

    /** Where a host may stop the session's thread: its evaluations only. */
    private val stopGate = StopGate()
    private val lastNumber = AtomicInteger(0)

    /** The execution being evaluated, which cancellation may interrupt; guarded by [lock]. */
    private var evaluating: ScriptExecution? = null

    /** The execution whose snippet runs on the session's thread; guarded by [lock]. */
    private var currentExecution: ScriptExecution? = null
    private var closed = false

    @Volatile
    private lateinit var runner: SnippetRunner

    /** Why the session could not start its compiler or declare its properties; every snippet then reports it. */
    @Volatile
    private var startFailure: String? = null

    /** Reports the uncaught exceptions of threads started by the snippets, found by their frames. */
    private val threadErrors = ThreadErrorReporter { thread, error ->
        if (!::runner.isInitialized || !runner.hasSnippetFrames(error)) return@ThreadErrorReporter false
        printError("Exception in thread \"${thread.name}\": ${runner.render(error)}")
        true
    }

    init {
        ProvidedProperties.validate(properties)
        id = ProvidedProperties.register(properties)
        if (host != null) OutputRouting.install()
        UncaughtErrors.install()
        ExitWatch.install()
        ExitWatch.listen(id) { exit, number -> host?.let { tellExit(it, exit, number) } == true }
        scope = SessionScope(dispatcher, symbols, display, host, (host as? InputHost)?.input, threadErrors) { error ->
            reportUncaught(error)
        }
        scope.context.open()
        thread = startThread()
        val prelude = if (properties.isEmpty()) "Unit" else ProvidedProperties.prelude(id, properties)
        submit {
            try {
                runner = SnippetRunner(
                    ScriptSession::class.java.classLoader,
                    configuration,
                    symbols,
                    ::evaluationStarts,
                    ::evaluationEnds,
                    stopGate,
                    clock,
                )
                val result = runner.run("session_$id.kts", prelude).result
                if (result is ScriptResult.Error) startFailure = "the provided properties could not be declared:\n${result.message}"
            } catch (e: Throwable) {
                logger.error(e) { "session $id could not start its compiler" }
                startFailure = "the Kotlin compiler could not be started: $e"
            } finally {
                compilerStart.countDown()
            }
            if (WARM_UP_COMPLETION && startFailure == null) warmUpCompletion()
        }
    }

    /**
     * The runner once the compiler started, waiting for its start at most [waitMillis]; null when it did not start
     * within that time ([StartState.STARTING]) or failed ([StartState.FAILED]).
     */
    private fun startedRunner(waitMillis: Long): Pair<SnippetRunner?, StartState> {
        if (!compilerStart.await(waitMillis, TimeUnit.MILLISECONDS)) return null to StartState.STARTING
        return if (startFailure == null && ::runner.isInitialized) runner to StartState.STARTED else null to StartState.FAILED
    }

    /**
     * Queues the completion's warm-up on the session's thread, behind the snippets already queued: it starts once the
     * session idled [WARM_UP_IDLE_MILLIS], yields as soon as a snippet is queued or a completion waits for the
     * compiler, and is queued again until it got through (each read it finished is kept), so cells, even cells run
     * one after another, are not held up by it.
     */
    private fun warmUpCompletion() {
        val task = Runnable {
            // only the session's thread takes tasks: one taken here goes back to the front, in its order
            val next = try {
                tasks.pollFirst(WARM_UP_IDLE_MILLIS, TimeUnit.MILLISECONDS)
            } catch (_: InterruptedException) {
                warmUpCompletion()
                return@Runnable
            }
            if (next != null) {
                tasks.putFirst(next)
                warmUpCompletion()
            } else if (runner.warmUpCompletion { tasks.isNotEmpty() } == false) {
                warmUpCompletion()
            }
        }
        synchronized(lock) { if (!closed) tasks.put(task) }
    }

    /** The number of the last snippet executed (the next one is `snippet${lastSnippetNumber + 1}.kts`). */
    public val lastSnippetNumber: Int get() = lastNumber.get()

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
        if (code.isBlank()) {
            ScriptExecution.completed(ScriptResult.Value(Unit))
        } else {
            submitSnippet(code, lastNumber.incrementAndGet())
        }

    /**
     * Like [executeAsync], naming the snippet `snippet$snippetNumber.kts` (the next number when null), blank or not;
     * the number must exceed [lastSnippetNumber]. A host's snippet [skipsWhenCancelled]: cancelled while it compiles,
     * it does not run.
     */
    internal fun executeAsync(code: String, snippetNumber: Int?, skipsWhenCancelled: Boolean = false): ScriptExecution {
        if (snippetNumber == null) return submitSnippet(code, lastNumber.incrementAndGet(), skipsWhenCancelled)
        while (true) {
            val last = lastNumber.get()
            require(snippetNumber > last) { "snippet number $snippetNumber must be greater than $last, the last one used" }
            if (lastNumber.compareAndSet(last, snippetNumber)) break
        }
        return submitSnippet(code, snippetNumber, skipsWhenCancelled)
    }

    private fun submitSnippet(code: String, number: Int, skipsWhenCancelled: Boolean = false): ScriptExecution {
        val execution = ScriptExecution(number, ::cancel, skipsWhenCancelled)
        submit {
            if (execution.isDone) {
                execution.settled.complete(null)
                host?.snippetSettled(number, null, cancelled = true)
                return@submit
            }
            synchronized(lock) { currentExecution = execution }
            host?.snippetStarts(number)
            clock.start(number)
            ExitWatch.starts(id, number)
            var thrown: Throwable? = null
            val run = try {
                startFailure?.let { failure ->
                    SnippetRun(ScriptResult.Error(ExecutionPhase.COMPILATION, "snippet$number.kts: error: $failure"))
                }
                    ?: runner.run("snippet$number.kts", code)
            } catch (e: Throwable) {
                thrown = e
                logger.error(e) { "snippet$number.kts failed in the engine" }
                SnippetRun(ScriptResult.Error(ExecutionPhase.COMPILATION, "snippet$number.kts: error: the engine failed: $e"))
            } finally {
                execution.ranMillis = clock.stop()
                ExitWatch.ends(id)
                synchronized(lock) { currentExecution = null }
            }
            execution.complete(run.result)
            execution.settled.complete(run.result)
            // a host that shows rich output gets the value's bundle, rendered here with the session's renderers
            val shown = if (host is DisplayTarget) withValueBundle(run) else run
            host?.snippetSettled(number, shown, execution.isCancelled)
            (run.thrown ?: thrown)?.let { error -> replaceThread = overflowedTheStack(error) }
            memory.snippetSettled(run.thrown ?: thrown)
        }
        return execution
    }

    /**
     * Compiles [code] on the session's thread as the next snippet would be compiled (as
     * `snippet${lastSnippetNumber + 1}.kts`, after the snippets submitted before it), without running it or changing
     * the session: see [SnippetRunner.check]. The next snippet keeps its number.
     */
    internal fun checkAsync(code: String): CompletableFuture<SnippetRun> {
        val fileName = "snippet${lastNumber.get() + 1}.kts"
        if (code.isBlank()) return CompletableFuture.completedFuture(SnippetRun(ScriptResult.Value(Unit)))
        val checked = CompletableFuture<SnippetRun>()
        submit {
            val run = try {
                startFailure?.let { SnippetRun(ScriptResult.Error(ExecutionPhase.COMPILATION, "$fileName: error: $it")) }
                    ?: runner.check(fileName, code)
            } catch (e: Throwable) {
                logger.error(e) { "checking $fileName failed in the engine" }
                SnippetRun(ScriptResult.Error(ExecutionPhase.COMPILATION, "$fileName: error: the engine failed: $e"))
            }
            checked.complete(run)
        }
        return checked
    }

    private fun submit(task: () -> Unit) {
        check(!closed) { "the session is closed" }
        tasks.put(Runnable(task))
    }

    private fun startThread(): Thread = Thread(null, ::serve, "kotlin-script-session-$id", SESSION_THREAD_STACK_BYTES).apply {
        isDaemon = true
        // a thread started from a JPype-attached thread inherits no context class loader
        contextClassLoader = ScriptSession::class.java.classLoader
        start()
    }

    /**
     * Runs the session's tasks on its thread. A deep recursion touches the thread's whole stack, whose pages stay
     * resident while the thread lives (and the JVM's arenas the overflow grew are freed only when it ends): after a
     * snippet that overflowed the stack, a fresh thread takes over the tasks and this one ends.
     */
    private fun serve() {
        scope.context.bindToCurrentThread()
        while (true) {
            val task = try {
                tasks.take()
            } catch (_: InterruptedException) {
                continue
            }
            if (task === STOP) break
            try {
                task.run()
            } catch (e: Throwable) {
                logger.error(e) { "a task of session $id failed" }
            }
            if (replaceThread) {
                replaceThread = false
                synchronized(lock) { thread = startThread() }
                MemoryReturn.trimNativeHeapSoon()
                logger.debug { "session $id continues on a fresh thread after a stack overflow" }
                return
            }
        }
        if (::runner.isInitialized) runner.close()
    }

    /** Whether the compiled snippet may run: not when a host's cancellation came while it compiled. */
    private fun evaluationStarts(): Boolean {
        synchronized(lock) {
            val execution = currentExecution
            if (execution != null && execution.isCancelled && execution.skipsWhenCancelled) return false
            Thread.interrupted()
            evaluating = execution
            scope.evaluationStarts()
            return true
        }
    }

    private fun evaluationEnds() {
        synchronized(lock) {
            evaluating = null
            scope.evaluationEnds(thread)
            Thread.interrupted()
        }
    }

    private fun cancel(execution: ScriptExecution) {
        synchronized(lock) {
            if (evaluating !== execution) return
            logger.debug { "cancelling the snippet being evaluated in session $id" }
            scope.cancelEvaluation(thread)
        }
    }

    /** The monitor a host holds from [stoppableThread] until its stop of that thread returned. */
    internal val stopMonitor: Any get() = stopGate

    /**
     * The session's thread if it evaluates [execution]'s snippet, for a host to stop it (its cancellation was
     * ignored); the caller holds [stopMonitor].
     */
    internal fun stoppableThread(execution: ScriptExecution): Thread? {
        synchronized(lock) { if (evaluating !== execution) return null }
        return stopGate.runningThread()
    }

    /** Whether [execution]'s snippet is being evaluated (compiled, not settled). */
    internal fun isEvaluating(execution: ScriptExecution): Boolean = synchronized(lock) { evaluating === execution }

    /** The session's thread while it runs [execution]'s snippet (compiling or evaluating it), else null. */
    internal fun threadOf(execution: ScriptExecution): Thread? = synchronized(lock) { thread.takeIf { currentExecution === execution } }

    /** The top [limit] of a running thread's [frames], a snippet's named as in its errors. */
    internal fun topFrames(frames: Array<StackTraceElement>, limit: Int): List<String> =
        if (::runner.isInitialized) runner.topFrames(frames, limit) else frames.take(limit).map { it.toString() }

    private fun tellExit(host: SessionHost, exit: ProcessExit, number: Int?): Boolean {
        if (!::runner.isInitialized) return host.processExits(exit, number, exit.caller, "")
        return host.processExits(exit, number, exit.caller.takeWhile { !runner.isSnippetFrame(it) }, runner.renderFrames(exit.caller))
    }

    /** An uncaught exception of a coroutine the snippets launched, rendered like their own errors. */
    private fun reportUncaught(error: Throwable) {
        printError("Exception in a launched coroutine: ${render(error)}")
    }

    /** [run] with the bundle of its value, when it has one (not for Unit and errors); never throws. */
    private fun withValueBundle(run: SnippetRun): SnippetRun {
        val result = run.result as? ScriptResult.Value ?: return run
        return display.valueBundle(result.value)?.let { run.copy(valueBundle = it) } ?: run
    }

    private fun render(error: Throwable): String = if (::runner.isInitialized) runner.render(error) else SnippetNames.header(error)

    private fun printError(text: String) {
        host?.write(OutputTarget.STDERR, "$text\n") ?: System.err.println(text)
    }

    /**
     * Completions at [cursor] (a UTF-16 offset) of [code], by the static types the K2 compiler finds in the session's
     * snippets and [code] up to the cursor: after a dot the members and extensions of the receiver's type, else the
     * names in scope, named arguments and keywords. Changes nothing of the session; may be called on any thread, also
     * while a snippet runs. Before the compiler is up, or while it stays busy, the names the session declared.
     */
    public fun complete(code: String, cursor: Int): Completion = completer.complete(code, cursor)

    /** The declaration of the name at [cursor] of [code], and the current value of a property; null if unknown. */
    public fun inspect(code: String, cursor: Int): String? = completer.inspect(code, cursor).text

    /** [inspect] with how it was answered: by type or from names, and after how long a wait for the compiler. */
    public fun inspection(code: String, cursor: Int): Inspection = completer.inspect(code, cursor)

    /** Cancels launched coroutines and releases the compiler and the session's thread. */
    override fun close() {
        synchronized(lock) {
            if (closed) return
            closed = true
        }
        scope.cancel()
        tasks.put(STOP)
        scope.context.close()
        ExitWatch.stopListening(id)
        ProvidedProperties.unregister(id)
    }

    private companion object {
        const val SESSION_THREAD_STACK_BYTES = 256L shl 20

        /** `-Dkotlinllm.completion.warmUp=false` leaves the completion's warm-up out (to measure what it saves). */
        val WARM_UP_COMPLETION = System.getProperty("kotlinllm.completion.warmUp") != "false"

        /** How long the session idles before the warm-up starts: the next cell of a notebook run top to bottom comes sooner. */
        const val WARM_UP_IDLE_MILLIS = 300L

        fun overflowedTheStack(error: Throwable): Boolean {
            val seen = HashSet<Throwable>()
            return generateSequence(error) { it.cause }.takeWhile { seen.add(it) }.any { it is StackOverflowError }
        }
        val STOP = Runnable {}
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
public class ScriptExecution internal constructor(
    /** The snippet's number, `N` of `snippetN.kts`; 0 for a blank snippet, which is not run. */
    internal val snippetNumber: Int,
    private val onCancel: (ScriptExecution) -> Unit,
    /** A host's cancellation (unlike the spec's) keeps a snippet still compiling from running. */
    internal val skipsWhenCancelled: Boolean = false,
) : CompletableFuture<ScriptResult>() {

    /** Completes when the snippet has finished, cancelled or not. */
    public val settled: CompletableFuture<ScriptResult?> = CompletableFuture()

    /** Milliseconds the snippet ran, once it has finished (see [RunClock]); -1 before. */
    @Volatile
    internal var ranMillis: Long = -1

    override fun cancel(mayInterruptIfRunning: Boolean): Boolean {
        val cancelled = super.cancel(mayInterruptIfRunning)
        if (cancelled) onCancel(this)
        return cancelled
    }

    internal companion object {
        fun completed(result: ScriptResult): ScriptExecution = ScriptExecution(0, {}).also {
            it.complete(result)
            it.settled.complete(result)
        }
    }
}
