package org.kotlinllm.script.internal

import io.github.oshai.kotlinlogging.KotlinLogging
import java.io.FileDescriptor
import java.io.FileOutputStream
import java.io.PrintStream
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean

private val logger = KotlinLogging.logger {}

/**
 * Says why the process ends when code the engine does not rewrite (a library, reflection) calls `System.exit` or
 * `Runtime.exit` while a snippet runs: the snippets' own calls are refused (see SnippetBytecode), these cannot be.
 * A shutdown hook names the snippets running and where exit was called, in the engine's log, or on the process's
 * own stderr (a kernel's log) when that log is off. `Runtime.halt` runs no hook and stays silent.
 */
internal object ExitWatch {

    /** The snippet each session runs, by session id. */
    private val running = ConcurrentHashMap<Long, Int>()
    private val installed = AtomicBoolean()

    fun install() {
        if (!installed.compareAndSet(false, true)) return
        try {
            Runtime.getRuntime().addShutdownHook(Thread(::report, "kotlin-script-exit-watch"))
        } catch (_: IllegalStateException) {
            // the process is exiting already
        }
    }

    fun starts(session: Long, snippet: Int) {
        running[session] = snippet
    }

    fun ends(session: Long) {
        running.remove(session)
    }

    private fun report() {
        val snippets = running.entries.sortedBy { it.key }.map { (session, snippet) -> "snippet$snippet.kts of session $session" }
        val caller = Thread.getAllStackTraces().values.firstNotNullOfOrNull(::callerOfExit)
        val snippetCalled = caller.orEmpty().any { it.fileName?.let(SNIPPET_FILE::matches) == true }
        if (snippets.isEmpty() && !snippetCalled) return
        val text = buildString {
            append("the process is ending")
            if (caller != null) append(": System.exit or Runtime.exit was called by code that is not a snippet's own")
            if (snippets.isNotEmpty()) append(" while ").append(snippets.joinToString(", ")).append(" runs")
            for (frame in caller.orEmpty().take(MAX_FRAMES)) append("\n  at ").append(frame)
        }
        if (logger.isErrorEnabled()) {
            logger.error { text }
        } else {
            PrintStream(FileOutputStream(FileDescriptor.err), true, Charsets.UTF_8).println("kotlin-llm engine: $text")
        }
    }

    /** The frames below `Runtime.exit` of a thread that called it, null if [stack] has no such call. */
    private fun callerOfExit(stack: Array<StackTraceElement>): List<StackTraceElement>? {
        val exit = stack.indexOfLast { it.className == "java.lang.Runtime" && it.methodName == "exit" }
        if (exit < 0) return null
        return stack.drop(exit + 1).dropWhile { it.className == "java.lang.System" && it.methodName == "exit" }
    }

    private const val MAX_FRAMES = 12
    private val SNIPPET_FILE = Regex("""snippet\d+\.kts""")
}
