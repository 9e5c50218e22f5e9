package org.kotlinllm.script.internal.session

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.internal.bytecode.SnippetBytecode
import java.io.FileDescriptor
import java.io.FileOutputStream
import java.io.PrintStream
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean
import java.util.logging.Handler
import java.util.logging.Level
import java.util.logging.LogRecord
import java.util.logging.Logger

private val logger = KotlinLogging.logger {}

/**
 * The process is ending because code the engine does not rewrite (a library, the JDK) called `System.exit` or
 * `Runtime.exit`.
 *
 * @property call `System.exit` or `Runtime.exit`.
 * @property status the exit status; null when the JDK does not tell it (before JDK 21).
 * @property caller the frames below the call, innermost first.
 */
internal class ProcessExit(val call: String, val status: Int?, val caller: List<StackTraceElement>) {
    /** `System.exit(3)`, or `System.exit` when the status is not known. */
    val description: String get() = if (status == null) call else "$call($status)"
}

/** A session told of a [ProcessExit] while its snippet [snippetNumber] runs (null: none runs); it may block a while. */
internal fun interface ExitListener {
    /** Returns whether a host was told, which then logs the exit itself. */
    fun processExits(exit: ProcessExit, snippetNumber: Int?): Boolean
}

/**
 * Says why the process ends when code the engine does not rewrite (a library, the JDK) calls `System.exit` or
 * `Runtime.exit`: the snippets' own calls are refused (see SnippetBytecode), these cannot be. A shutdown hook names
 * tells the sessions' [ExitListener]s, which may hold the exit back a while (a host replying to its client) and log it
 * themselves; else it names the snippets running and where exit was called in the engine's log, or on the process's
 * own stderr when that log is off. `Runtime.halt` runs no hook and stays silent.
 *
 * The status is not visible to a hook; from JDK 21 on, `Runtime.exit` logs it (at level DEBUG, logger
 * `java.lang.Runtime`) before the hooks run, and a handler of that logger keeps it, with the caller's frames.
 */
internal object ExitWatch {

    /** The snippet each session runs, by session id. */
    private val running = ConcurrentHashMap<Long, Int>()
    private val listeners = ConcurrentHashMap<Long, ExitListener>()
    private val installed = AtomicBoolean()

    /** The exit `Runtime.exit` logged, when it did. */
    @Volatile
    private var logged: ProcessExit? = null

    /** Held: `java.util.logging` keeps its loggers, and so their level and handlers, only weakly. */
    private var runtimeLogger: Logger? = null

    fun install() {
        if (!installed.compareAndSet(false, true)) return
        val hook = Thread(::report, "kotlin-script-exit-watch")
        try {
            if (!addToJPype(hook)) Runtime.getRuntime().addShutdownHook(hook)
        } catch (_: IllegalStateException) {
            return // the process is exiting already
        }
        if (Runtime.version().feature() >= FIRST_JDK_LOGGING_EXIT) watchExitLog()
    }

    fun starts(session: Long, snippet: Int) {
        running[session] = snippet
    }

    fun ends(session: Long) {
        running.remove(session)
    }

    fun listen(session: Long, listener: ExitListener) {
        listeners[session] = listener
    }

    fun stopListening(session: Long) {
        listeners.remove(session)
    }

    /**
     * Under JPype (a Python host), whose own shutdown hook interrupts the other hooks' threads and then ends all calls
     * between Java and Python, [hook] becomes one of JPype's hooks, which that hook runs and waits for first.
     */
    private fun addToJPype(hook: Thread): Boolean {
        val context = try {
            Class.forName("org.jpype.JPypeContext", true, ClassLoader.getSystemClassLoader()).getMethod("getInstance").invoke(null)
        } catch (_: ReflectiveOperationException) {
            return false
        } catch (_: LinkageError) {
            return false
        } ?: return false
        context.javaClass.getMethod("addShutdownHook", Thread::class.java).invoke(context, hook)
        logger.debug { "the exit watch runs as a shutdown hook of JPype's" }
        return true
    }

    private fun watchExitLog() {
        try {
            val runtime = Logger.getLogger("java.lang.Runtime")
            runtime.addHandler(object : Handler() {
                override fun publish(record: LogRecord) {
                    val thrown = record.thrown ?: return
                    val status = EXIT_LOGGED.matchEntire(thrown.message.orEmpty())?.groupValues?.get(1)?.toIntOrNull() ?: return
                    logged = exitOf(thrown.stackTrace.asList(), status)
                }

                override fun flush() = Unit

                override fun close() = Unit
            })
            // DEBUG of System.Logger is FINE here; a level already finer stays
            if (runtime.level == null || runtime.level.intValue() > Level.FINE.intValue()) runtime.level = Level.FINE
            runtimeLogger = runtime
        } catch (e: Exception) {
            logger.debug(e) { "the exit status of Runtime.exit cannot be watched" }
        }
    }

    private fun report() {
        val exit = logged ?: Thread.getAllStackTraces().values.firstNotNullOfOrNull { exitOf(it.asList(), null) }
        val snippets = running.entries.sortedBy { it.key }.map { (session, snippet) -> "snippet$snippet.kts of session $session" }
        val snippetCalled = exit?.caller.orEmpty().any { it.fileName?.let(SNIPPET_FILE::matches) == true }
        // the sessions' hosts first: one told logs it itself (a kernel, whose stderr its cell would show)
        val told =
            exit != null && listeners.entries.sortedBy { it.key }.map { (session, listener) -> tell(listener, exit, session) }.any { it }
        if (!told && (snippets.isNotEmpty() || snippetCalled)) log(exit, snippets)
    }

    private fun tell(listener: ExitListener, exit: ProcessExit, session: Long): Boolean = try {
        listener.processExits(exit, running[session])
    } catch (e: Throwable) {
        logger.warn(e) { "session $session could not be told that the process ends" }
        false
    }

    private fun log(exit: ProcessExit?, snippets: List<String>) {
        val text = buildString {
            append("the process is ending")
            if (exit != null) append(": ${exit.description} was called by code that is not a snippet's own")
            if (snippets.isNotEmpty()) append(" while ").append(snippets.joinToString(", ")).append(" runs")
            for (frame in exit?.caller.orEmpty().take(MAX_FRAMES)) append("\n  at ").append(frame)
        }
        if (logger.isErrorEnabled()) {
            logger.error { text }
        } else {
            PrintStream(FileOutputStream(FileDescriptor.err), true, Charsets.UTF_8).println("kotlin-llm engine: $text")
        }
    }

    /** The exit called in [stack] (a thread's, innermost first), null if it has no call of `Runtime.exit`. */
    private fun exitOf(stack: List<StackTraceElement>, status: Int?): ProcessExit? {
        val exit = stack.indexOfLast { it.className == "java.lang.Runtime" && it.methodName == "exit" }
        if (exit < 0) return null
        val below = stack.drop(exit + 1)
        val bySystem = below.firstOrNull()?.let { it.className == "java.lang.System" && it.methodName == "exit" } == true
        return ProcessExit(if (bySystem) "System.exit" else "Runtime.exit", status, if (bySystem) below.drop(1) else below)
    }

    private const val MAX_FRAMES = 12
    private const val FIRST_JDK_LOGGING_EXIT = 21
    private val SNIPPET_FILE = Regex("""snippet\d+\.kts""")
    private val EXIT_LOGGED = Regex("""Runtime\.exit\((-?\d+)\)""")
}
