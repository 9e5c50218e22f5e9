package org.kotlinllm.script.runtime

import kotlinx.coroutines.asContextElement
import org.jetbrains.kotlinx.jupyter.api.Notebook
import java.lang.ref.WeakReference
import java.util.concurrent.CopyOnWriteArraySet
import kotlin.coroutines.CoroutineContext

/**
 * The session a running snippet's code belongs to, and everything that code needs of it: its scope (`launch`,
 * `await`), its declarations (`vars()`), its display (`DISPLAY`), where it prints and reads (`System.out`, `System.err`,
 * `System.in`) and who reports the uncaught exceptions of the threads it starts. The one answer to "which session is
 * this thread's": set on the session's thread, inherited by the threads its code starts, and carried by its
 * coroutines ([element]) onto whatever thread runs them.
 */
internal class SessionContext(
    val scope: ScriptScope,
    val declarations: DeclarationListing,
    val display: DisplaySink,
    /** Where its code prints; null for a session on the process's own streams. */
    val output: OutputTarget?,
    /** What its code's reads of `System.in` ask; null for a session on the process's own `System.in`. */
    val input: InputSource?,
    val threadErrors: ThreadErrorReporter,
) {
    // what the thread-locals hold: a thread outliving its closed session (a pool a snippet started) must not keep
    // the session's classes and values alive
    private val reference = WeakReference(this)

    /** JetBrains' `notebook` of the session, once its compiler started (its host runs code through the compiler). */
    @Volatile
    var notebook: Notebook? = null

    @Volatile
    private var isOpen = false

    /** This session's context in a coroutine context: its coroutines see it on every dispatcher. */
    val element: CoroutineContext.Element = local.asContextElement(reference)

    /** The session is open: its code finds it, and threads of no session may fall back to it (see [currentOrSole]). */
    fun open() {
        isOpen = true
        opened += this
    }

    /** From now on no thread finds this session, not even one that still carries it. */
    fun close() {
        isOpen = false
        opened -= this
    }

    /** Makes this the context of the calling thread (the session's own) and of the threads it starts from now on. */
    fun bindToCurrentThread() {
        local.set(reference)
    }

    internal companion object {

        private val local = object : InheritableThreadLocal<WeakReference<SessionContext>?>() {
            // A worker of a pool that every session shares is started by whatever code first needs one, yet serves
            // them all: it starts with no session, and the coroutines it runs bring their own (element).
            override fun childValue(parent: WeakReference<SessionContext>?): WeakReference<SessionContext>? =
                parent?.takeUnless { startedForSharedPool() }
        }

        private val opened = CopyOnWriteArraySet<SessionContext>()

        /** Where the workers of the pools shared by every session are created: class name prefixes of the creating frame. */
        private val SHARED_POOLS = listOf(
            "kotlinx.coroutines.scheduling.", // Dispatchers.Default and Dispatchers.IO
            "kotlinx.coroutines.DefaultExecutor", // delay's timer thread
            "java.util.concurrent.ForkJoinPool\$DefaultCommonPool", // ForkJoinPool.commonPool(), parallel streams
        )

        /**
         * Whether the thread being created (this is called in its constructor) is a shared pool's worker: told by the
         * frame creating it, the first below the constructors and the thread-local machinery. Not by any frame below
         * that, since a coroutine on a Default worker that starts a thread has the pool's frames further down.
         */
        private fun startedForSharedPool(): Boolean = StackWalker.getInstance().walk { frames ->
            frames.filter { frame ->
                frame.methodName != "<init>" && !frame.className.startsWith("java.lang.Thread") &&
                    !frame.className.startsWith("java.lang.InheritableThreadLocal") &&
                    !frame.className.startsWith(SessionContext::class.java.name)
            }.findFirst().map { creator -> SHARED_POOLS.any { creator.className.startsWith(it) } }.orElse(false)
        }

        /** The open session whose code runs on this thread; null outside any (a thread pool's worker started before). */
        fun current(): SessionContext? = local.get()?.get()?.takeIf { it.isOpen }

        /**
         * For what a snippet's code asks for by name (`vars()`, `DISPLAY`, `launch`): [current], else, on a thread of
         * no session (a pool's worker, a parallel stream), the only open session, when there is exactly one — as in a
         * kernel, whose process has one.
         */
        fun currentOrOnly(): SessionContext? = current() ?: opened.singleOrNull()

        /**
         * For what the JVM routes per thread whatever the code, rather than fail (`System.out`, `System.err`,
         * `System.in`, the default uncaught-exception handler): [current], else, on a thread of no session, the
         * only session capturing the process's streams, when there is exactly one.
         */
        fun currentOrSole(): SessionContext? = current() ?: opened.singleOrNull { it.output != null }

        /** Whether any open session captures its code's output (the process's streams are routed then). */
        val anyCapturing: Boolean get() = opened.any { it.output != null }
    }
}

/** Where the text a session's code prints goes. */
internal interface OutputTarget {
    /** Called with [STDOUT] or [STDERR] and text decoded so far, in the order it was printed. */
    fun write(stream: String, text: String)

    companion object {
        const val STDOUT: String = "stdout"
        const val STDERR: String = "stderr"
    }
}

/** What a session's reads of `System.in` ask (the engine's SessionInput). */
internal interface InputSource {
    /** One line for the calling code, without its line end; null at the end of input. */
    fun readLine(prompt: String, password: Boolean): String?

    /** Like `InputStream.read`: the rest of the last line, or the next one; -1 at the end of input. */
    fun read(bytes: ByteArray, offset: Int, length: Int): Int

    /** The bytes that can be read without asking for a line. */
    fun available(): Int
}

/** What the display functions act on: the display of one session (the engine's SessionDisplay). */
internal interface DisplaySink {
    fun display(value: Any?, id: String?, update: Boolean)

    fun clearOutput(wait: Boolean)

    /** [caller] is the snippet's frame that registers it (inside the inlined `render`). */
    fun register(type: Class<*>, renderer: (Any) -> Any?, caller: StackTraceElement?)
}

/** Reports the uncaught exception of a thread a session's code started. */
internal fun interface ThreadErrorReporter {
    /** Reports [error], which ended [thread], and returns true if it comes from the session's snippets. */
    fun report(thread: Thread, error: Throwable): Boolean
}
