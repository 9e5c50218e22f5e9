package org.kotlinllm.script.internal

/**
 * The advice under a snippet's OutOfMemoryError of the heap: the limit the JVM runs with, how to raise it, and why a
 * retry fails until the session's values are released (they stay reachable from the session's later snippets).
 */
internal object OutOfMemoryHint {

    /** The hint when [error] or one of its causes is the heap running out, else null. */
    fun of(error: Throwable): String? {
        val seen = HashSet<Throwable>()
        val exhausted = generateSequence(error) { it.cause }.takeWhile { seen.add(it) }.any(::isHeapExhausted)
        if (!exhausted) return null
        val limit = Runtime.getRuntime().maxMemory() / BYTES_PER_MB
        return "the heap limit is $limit MB; raise it with the kernel setting max_heap (e.g. --KotlinKernel.max_heap=4g) " +
            "or the JVM option -Xmx. Values of the session keep their memory until released: empty them " +
            "(e.g. big.clear()) or declare them again (val big = 0)"
    }

    // Other OutOfMemoryErrors (Metaspace, native threads, direct buffers, an array past the VM's size limit) are
    // not about the heap limit: no hint would help them.
    private fun isHeapExhausted(error: Throwable): Boolean =
        error is OutOfMemoryError && error.message.orEmpty().let { it.startsWith("Java heap space") || it.startsWith("GC overhead") }

    private const val BYTES_PER_MB = 1024L * 1024L
}
