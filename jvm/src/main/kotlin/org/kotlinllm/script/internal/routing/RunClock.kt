package org.kotlinllm.script.internal.routing

/**
 * How long the session's current snippet has run, for a host that limits it: from the moment the session's thread
 * takes it up (not its wait behind earlier snippets) to its end, without the time it waits for something outside
 * (its `@file:DependsOn` dependencies to resolve, its reads of `System.in` to be answered). One snippet runs at a
 * time, so one clock serves a session; it is restarted for each snippet. Used from any thread.
 */
internal class RunClock(private val nanoTime: () -> Long = System::nanoTime) {

    /** The snippet timed: the one running, else the last that ran (0 before the first). */
    private var number = 0
    private var running = false
    private var startedAt = 0L
    private var endedAt = 0L

    /** Waits going on now (several threads of a snippet may each wait for input), since [pausedAt]. */
    private var waits = 0
    private var pausedAt = 0L

    /** Nanoseconds of the waits that ended. */
    private var waited = 0L

    @Synchronized
    fun start(snippetNumber: Int) {
        number = snippetNumber
        running = true
        startedAt = nanoTime()
        waits = 0
        waited = 0
    }

    /** Ends the running snippet's run; the milliseconds it ran. */
    @Synchronized
    fun stop(): Long {
        if (!running) return 0
        endedAt = nanoTime()
        if (waits > 0) waited += endedAt - pausedAt
        waits = 0
        running = false
        return (endedAt - startedAt - waited) / NANOS_PER_MILLI
    }

    /**
     * Runs [wait] without counting it for the running snippet. A wait of code that outlives its snippet (a thread it
     * started) stops counting nothing of the next one.
     */
    fun <T> waiting(wait: () -> T): T {
        val snippet = pause()
        try {
            return wait()
        } finally {
            resume(snippet)
        }
    }

    /** Milliseconds snippet [snippetNumber] has run, without its waits; 0 when it is not the one running or last run. */
    @Synchronized
    fun millis(snippetNumber: Int): Long {
        if (snippetNumber != number || (number == 0 && !running)) return 0
        val now = if (running) nanoTime() else endedAt
        val waiting = if (running && waits > 0) now - pausedAt else 0
        return (now - startedAt - waited - waiting) / NANOS_PER_MILLI
    }

    @Synchronized
    private fun pause(): Int {
        if (!running) return 0
        if (waits++ == 0) pausedAt = nanoTime()
        return number
    }

    @Synchronized
    private fun resume(snippet: Int) {
        if (!running || snippet != number || waits == 0) return
        if (--waits == 0) waited += nanoTime() - pausedAt
    }

    private companion object {
        const val NANOS_PER_MILLI = 1_000_000L
    }
}
