package org.kotlinllm.script

import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/** Text written by a session's snippets, to [STDOUT] or [STDERR]. */
public class OutputChunk(
    @JvmField public val stream: String,
    @JvmField public val text: String,
) {
    override fun toString(): String = "$stream: $text"

    public companion object {
        public const val STDOUT: String = "stdout"
        public const val STDERR: String = "stderr"
    }
}

/**
 * What the snippets of one session write to `System.out` and `System.err`, also from their `await` and `launch`
 * coroutines and from threads they start, kept in order until [drain]ed.
 */
public class SessionOutput internal constructor() {

    private val chunks = LinkedBlockingQueue<OutputChunk>()
    private val arrival = Object()

    internal fun write(stream: String, text: String) {
        if (text.isEmpty()) return
        chunks.put(OutputChunk(stream, text))
        synchronized(arrival) { arrival.notifyAll() }
    }

    /**
     * Waits up to [timeoutMillis] for output to be there, without taking it (a host forwarding output between
     * cells waits here instead of polling); true when there is some.
     */
    public fun waitForOutput(timeoutMillis: Long): Boolean {
        val deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis)
        synchronized(arrival) {
            while (chunks.isEmpty()) {
                val left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())
                if (left <= 0) return false
                arrival.wait(left)
            }
        }
        return true
    }

    /**
     * Waits up to [timeoutMillis] for output, then returns all that is there, adjacent chunks of the same stream
     * joined; empty when nothing was written.
     */
    public fun drain(timeoutMillis: Long): List<OutputChunk> {
        val first = chunks.poll(timeoutMillis, TimeUnit.MILLISECONDS) ?: return emptyList()
        val pending = mutableListOf(first)
        chunks.drainTo(pending)
        val merged = mutableListOf<OutputChunk>()
        var stream = pending.first().stream
        val text = StringBuilder()
        for (chunk in pending) {
            if (chunk.stream != stream) {
                merged += OutputChunk(stream, text.toString())
                text.setLength(0)
                stream = chunk.stream
            }
            text.append(chunk.text)
        }
        merged += OutputChunk(stream, text.toString())
        return merged
    }
}
