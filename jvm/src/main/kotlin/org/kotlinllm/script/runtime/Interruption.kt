package org.kotlinllm.script.runtime

import java.util.concurrent.ConcurrentHashMap

/**
 * Lets a cancelled snippet stop inside a loop that neither blocks nor checks for interrupts: the engine inserts a
 * call of [check] before every backward jump of the snippets' bytecode (see SnippetBytecode). `Thread.stop` is gone
 * from JDK 20 on, so without this a busy loop could only end with its process. Public only because compiled snippets
 * call it.
 */
public object Interruption {

    private val cancelled: MutableSet<Thread> = ConcurrentHashMap.newKeySet()

    @Volatile
    private var anyCancelled = false

    /**
     * Throws [InterruptedException] if the snippet running on this thread was cancelled, at every check until its
     * evaluation ends: a check that caught it (in a lambda of a library loop) must not hide the cancellation from the
     * next one (runSuspending's, or the loop's own).
     */
    @JvmStatic
    public fun check() {
        if (anyCancelled && Thread.currentThread() in cancelled) throw InterruptedException("the snippet was cancelled while running")
    }

    internal fun request(thread: Thread) {
        cancelled += thread
        anyCancelled = true
    }

    internal fun clear(thread: Thread) {
        if (cancelled.remove(thread)) anyCancelled = cancelled.isNotEmpty()
    }
}

/**
 * Thrown into a cancelled snippet whose thread ignored the interrupt (a loop inside JDK or library code), where that
 * thread runs: a host stops it with the JVM tool interface's StopThread (see `host.StopTarget`). An [Error], so that
 * `catch (e: Exception)` lets it through; public only because snippets may catch it.
 */
public class SnippetInterruptedError(message: String) : Error(message)
