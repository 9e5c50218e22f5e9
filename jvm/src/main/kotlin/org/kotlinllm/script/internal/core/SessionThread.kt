package org.kotlinllm.script.internal.core

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.internal.session.MemoryReturn
import org.kotlinllm.script.runtime.SessionContext
import java.util.concurrent.LinkedBlockingDeque
import java.util.concurrent.TimeUnit

private val logger = KotlinLogging.logger {}

/**
 * The thread of a session and its tasks, run one after another: submitted at the end, taken (and put back, by the
 * warm-up) at the front. A deep recursion touches the thread's whole stack, whose pages stay resident while the
 * thread lives (and the JVM's arenas the overflow grew are freed only when it ends): after a task that overflowed the
 * stack, a fresh thread takes over the tasks and the old one ends.
 */
internal class SessionThread(private val name: String, private val context: SessionContext, private val onEnd: () -> Unit) {

    private val tasks = LinkedBlockingDeque<Runnable>()
    private val lock = Object()
    private var closed = false

    /** Set on the thread by a task that overflowed the stack: [serve] then hands over to a fresh thread. */
    private var replace = false

    /** Collects the heap after snippets that took much of it; used on the thread. */
    private val memory = MemoryReturn()

    /** The thread running the tasks now. */
    @Volatile
    var current: Thread = start()
        private set

    /** Queues [task]; throws when the session is closed. */
    fun submit(task: () -> Unit) {
        synchronized(lock) {
            check(!closed) { "the session is closed" }
            tasks.put(Runnable(task))
        }
    }

    /** A snippet settled on the thread, having thrown [error] (null: none): the heap and the stack are seen to. */
    fun settled(error: Throwable?) {
        if (error != null) replace = overflowedTheStack(error)
        memory.snippetSettled(error)
    }

    /**
     * Queues [work] behind the tasks already queued: it starts once the thread idled [idleMillis], yields as soon as a
     * task is queued (or [work]'s own reason to yield holds), and is queued again until it got through (false), so
     * tasks, even tasks queued one after another, are not held up by it.
     */
    fun warmUp(idleMillis: Long, work: (yieldWhen: () -> Boolean) -> Boolean?) {
        val task = Runnable {
            // only the session's thread takes tasks: one taken here goes back to the front, in its order
            val next = try {
                tasks.pollFirst(idleMillis, TimeUnit.MILLISECONDS)
            } catch (_: InterruptedException) {
                warmUp(idleMillis, work)
                return@Runnable
            }
            if (next != null) {
                tasks.putFirst(next)
                warmUp(idleMillis, work)
            } else if (work { tasks.isNotEmpty() } == false) {
                warmUp(idleMillis, work)
            }
        }
        synchronized(lock) { if (!closed) tasks.put(task) }
    }

    /** Ends the thread after the tasks queued; false when it was closed already. */
    fun close(): Boolean {
        synchronized(lock) {
            if (closed) return false
            closed = true
            tasks.put(STOP)
        }
        return true
    }

    private fun start(): Thread = Thread(null, ::serve, name, STACK_BYTES).apply {
        isDaemon = true
        // a thread started from a JPype-attached thread inherits no context class loader
        contextClassLoader = SessionThread::class.java.classLoader
        start()
    }

    private fun serve() {
        context.bindToCurrentThread()
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
                logger.error(e) { "a task of $name failed" }
            }
            if (replace) {
                replace = false
                synchronized(lock) { current = start() }
                MemoryReturn.trimNativeHeapSoon()
                logger.debug { "$name continues on a fresh thread after a stack overflow" }
                return
            }
        }
        onEnd()
    }

    private companion object {
        const val STACK_BYTES = 256L shl 20
        val STOP = Runnable {}

        fun overflowedTheStack(error: Throwable): Boolean {
            val seen = HashSet<Throwable>()
            return generateSequence(error) { it.cause }.takeWhile { seen.add(it) }.any { it is StackOverflowError }
        }
    }
}
