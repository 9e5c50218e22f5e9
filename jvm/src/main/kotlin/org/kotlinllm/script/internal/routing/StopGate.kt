package org.kotlinllm.script.internal.routing

import org.kotlinllm.script.runtime.SnippetInterruptedError

/**
 * Where a host may stop a session's thread with StopThread: only while a snippet's own evaluation runs, never in the
 * compiler or in the engine's bookkeeping, whose state a thrown-in error would break. The host holds this gate's
 * monitor from asking [runningThread] until its StopThread returned, so the thread cannot leave between the two: a
 * stop arriving after the evaluation ended is caught in [leave].
 */
internal class StopGate {

    /** The thread running a snippet's evaluation; guarded by this. */
    private var running: Thread? = null

    /** Whether a stop was sent during the current evaluation: one may still be pending when it ends. */
    @Volatile
    private var stopSent = false

    /** Runs [evaluation] (on the session's thread) as the only code a stop may land in. */
    fun <T> evaluation(evaluation: () -> T): T {
        synchronized(this) {
            running = Thread.currentThread()
            stopSent = false
        }
        try {
            return evaluation()
        } finally {
            leave()
        }
    }

    /**
     * The thread to stop, if an evaluation runs; the caller holds this monitor and stops it before releasing it.
     */
    fun runningThread(): Thread? {
        check(Thread.holdsLock(this)) { "a stop is prepared holding the session's stop gate" }
        return running?.also { stopSent = true }
    }

    private fun leave() {
        while (true) {
            try {
                synchronized(this) { running = null }
                if (stopSent) drain()
                return
            } catch (_: SnippetInterruptedError) {
                // a stop sent while the evaluation ended: it has no evaluation left to end
            }
        }
    }

    /**
     * StopThread leaves the error pending in the thread, thrown at its next return from native code: sleeping takes
     * it here rather than in whatever the engine does next.
     */
    private fun drain() {
        Thread.interrupted() // a sleep of an interrupted thread throws before it leaves the JVM
        repeat(DRAIN_STEPS) {
            try {
                Thread.sleep(1)
            } catch (_: SnippetInterruptedError) {
            } catch (_: InterruptedException) {
            }
        }
        stopSent = false
    }

    private companion object {
        const val DRAIN_STEPS = 10
    }
}
