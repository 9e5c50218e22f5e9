package org.kotlinllm.script.internal.routing

import io.github.oshai.kotlinlogging.KotlinLogging
import java.util.concurrent.CopyOnWriteArrayList

private val logger = KotlinLogging.logger {}

/** A session that can tell an uncaught exception of a thread its snippets started, and report it. */
internal interface UncaughtErrorReporter {

    /** Where the session's code prints (null: the process's streams), to find the session of a thread. */
    val output: OutputTarget?

    /** Reports [error], which ended [thread], and returns true if it comes from this session's snippets. */
    fun report(thread: Thread, error: Throwable): Boolean
}

/**
 * Renders the uncaught exceptions of threads that snippets started (plain threads, executors' workers) like other
 * runtime errors, on the stderr of their session: the JVM-wide default handler, installed once, which finds the
 * session as [OutputRouting] does for what the thread prints, and leaves every other exception to the handler that
 * was installed before it (or to the JVM's own printing).
 */
internal object UncaughtErrors {

    private val reporters = CopyOnWriteArrayList<UncaughtErrorReporter>()

    @Volatile
    private var installed = false
    private var previous: Thread.UncaughtExceptionHandler? = null

    fun register(reporter: UncaughtErrorReporter) {
        install()
        reporters += reporter
    }

    fun unregister(reporter: UncaughtErrorReporter) {
        reporters -= reporter
    }

    @Synchronized
    private fun install() {
        if (installed) return
        previous = Thread.getDefaultUncaughtExceptionHandler()
        Thread.setDefaultUncaughtExceptionHandler(::uncaught)
        installed = true
    }

    private fun uncaught(thread: Thread, error: Throwable) {
        val reported = try {
            reporterOfThisThread()?.report(thread, error) == true
        } catch (e: Throwable) {
            logger.warn(e) { "the uncaught exception of thread ${thread.name} could not be reported" }
            false
        }
        if (!reported) printAsTheJvmDoes(thread, error)
    }

    /** The session this thread prints to; for sessions printing to the process's streams, the only one of them. */
    private fun reporterOfThisThread(): UncaughtErrorReporter? {
        val target = OutputRouting.sessionOfThisThread()
        return if (target != null) reporters.firstOrNull { it.output === target } else reporters.singleOrNull()
    }

    private fun printAsTheJvmDoes(thread: Thread, error: Throwable) {
        previous?.let { return it.uncaughtException(thread, error) }
        // ThreadGroup.uncaughtException, which called this handler, prints nothing for a stopped thread either
        if (error.javaClass.name == "java.lang.ThreadDeath") return
        System.err.print("Exception in thread \"${thread.name}\" ")
        error.printStackTrace(System.err)
    }
}
