package org.kotlinllm.script.internal.routing

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.runtime.SessionContext

private val logger = KotlinLogging.logger {}

/**
 * Renders the uncaught exceptions of threads that snippets started (plain threads, executors' workers) like other
 * runtime errors, on the stderr of their session: the JVM-wide default handler, installed once, which asks the
 * session of the thread ([SessionContext.currentOrSole], as for what the thread prints), and leaves every other
 * exception to the handler that was installed before it (or to the JVM's own printing).
 */
internal object UncaughtErrors {

    @Volatile
    private var installed = false
    private var previous: Thread.UncaughtExceptionHandler? = null

    @Synchronized
    fun install() {
        if (installed) return
        previous = Thread.getDefaultUncaughtExceptionHandler()
        Thread.setDefaultUncaughtExceptionHandler(::uncaught)
        installed = true
    }

    private fun uncaught(thread: Thread, error: Throwable) {
        val reported = try {
            SessionContext.currentOrSole()?.threadErrors?.report(thread, error) == true
        } catch (e: Throwable) {
            logger.warn(e) { "the uncaught exception of thread ${thread.name} could not be reported" }
            false
        }
        if (!reported) printAsTheJvmDoes(thread, error)
    }

    private fun printAsTheJvmDoes(thread: Thread, error: Throwable) {
        previous?.let { return it.uncaughtException(thread, error) }
        // ThreadGroup.uncaughtException, which called this handler, prints nothing for a stopped thread either
        if (error.javaClass.name == "java.lang.ThreadDeath") return
        System.err.print("Exception in thread \"${thread.name}\" ")
        error.printStackTrace(System.err)
    }
}
