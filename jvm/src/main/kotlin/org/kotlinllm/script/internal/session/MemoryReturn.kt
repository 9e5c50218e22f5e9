package org.kotlinllm.script.internal.session

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.internal.report.OutOfMemoryHint
import java.lang.management.ManagementFactory
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import javax.management.ObjectName

private val logger = KotlinLogging.logger {}

/**
 * Gives the memory a session no longer uses back to the system, after the snippets that took much of it.
 *
 * The heap: the collectors give committed heap back only after a full collection, and the serial one (the kernel's
 * default) shrinks by steps, none at the first collection after growing (it damps shrinking across several
 * collections). So after a snippet that ran out of heap, or while the committed heap is over a quarter of the limit,
 * the session's thread runs up to [SHRINKING_COLLECTIONS] collections once the snippet has settled, until the heap's
 * free part is no larger than its used part (plus a margin). Heap that stays in use makes it wait more snippets each
 * time ([MAX_BACKOFF] at most), so a session that keeps a large heap pays rarely.
 *
 * Native memory: a thread that overflowed its stack leaves arena chunks that the JVM frees a few seconds after the
 * thread ends, and glibc keeps such freed memory: [trimNativeHeapSoon] asks the JVM to trim the C heap (the
 * `System.trim_native_heap` diagnostic command, where the JVM has it) after that.
 */
internal class MemoryReturn(private val runtime: Runtime = Runtime.getRuntime()) {

    private var pressed = false

    /** Snippets to let settle before collecting again, doubled each time a collection leaves the heap large. */
    private var backoff = 1
    private var waited = 0

    /** Snippet [thrown] (null: no error) has settled: collects the heap now if it is large and may have shrunk. */
    fun snippetSettled(thrown: Throwable?) {
        val exhausted = thrown != null && OutOfMemoryHint.isHeapExhausted(thrown)
        if (!exhausted) {
            if (!pressed && runtime.totalMemory() <= runtime.maxMemory() / LARGE_HEAP_FRACTION) return
            if (++waited < backoff) return
        }
        waited = 0
        shrink()
        pressed = runtime.totalMemory() > runtime.maxMemory() / LARGE_HEAP_FRACTION
        // after running out, the next snippet may well release what filled the heap: collect after it too
        backoff = if (!pressed || exhausted) 1 else minOf(backoff * 2, MAX_BACKOFF)
    }

    private fun shrink() {
        val before = runtime.totalMemory()
        for (collection in 1..SHRINKING_COLLECTIONS) {
            System.gc()
            val committed = runtime.totalMemory()
            val used = committed - runtime.freeMemory()
            if (committed - used <= used + FREE_MARGIN_BYTES) break
        }
        logger.debug { "heap committed ${before shr 20} MB before collecting, ${runtime.totalMemory() shr 20} MB after" }
    }

    companion object {
        private const val SHRINKING_COLLECTIONS = 4
        private const val LARGE_HEAP_FRACTION = 4
        private const val MAX_BACKOFF = 32
        private const val FREE_MARGIN_BYTES = 32L shl 20

        /** The JVM frees an ended thread's arena chunks within 5 s (its chunk pool cleaner's period). */
        private val TRIM_DELAYS_SECONDS = listOf(6L, 12L)

        /** Trims the C heap a few seconds from now, when the JVM has freed the memory of a thread that ended. */
        fun trimNativeHeapSoon() {
            for (delay in TRIM_DELAYS_SECONDS) {
                CompletableFuture.runAsync(::trimNativeHeap, CompletableFuture.delayedExecutor(delay, TimeUnit.SECONDS))
            }
        }

        private fun trimNativeHeap() {
            try {
                val result = ManagementFactory.getPlatformMBeanServer().invoke(
                    ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "systemTrimNativeHeap",
                    arrayOf<Any?>(null),
                    arrayOf(Array<String>::class.java.name),
                )
                logger.debug { "trimmed the native heap: $result" }
            } catch (e: Exception) {
                // a JVM without the command (or not on glibc): the memory comes back when glibc reuses it
                logger.debug(e) { "the native heap could not be trimmed" }
            }
        }
    }
}
