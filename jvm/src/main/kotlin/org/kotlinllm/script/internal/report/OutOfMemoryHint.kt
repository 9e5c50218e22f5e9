package org.kotlinllm.script.internal.report

/**
 * The advice under a snippet's OutOfMemoryError of the heap: the limit the JVM runs with, how to raise it, which values
 * of the session hold the most memory, and why a retry fails until they are released (they stay reachable from the
 * session's later snippets).
 */
internal object OutOfMemoryHint {

    /** The hint when [error] or one of its causes is the heap running out, else null; [values] are the session's. */
    fun of(error: Throwable, values: () -> List<Pair<String, Any?>> = { emptyList() }): String? {
        if (!isHeapExhausted(error)) return null
        val limit = Runtime.getRuntime().maxMemory() / BYTES_PER_MB
        val raise = "the heap limit is $limit MB; raise it with the kernel setting max_heap (e.g. --KotlinKernel.max_heap=4g) " +
            "or the JVM option -Xmx."
        val release = " Values of the session keep their memory until released: empty them (e.g. big.clear()) or " +
            "declare them again (val big = 0)"
        val largest = try {
            largest(values())
        } catch (_: OutOfMemoryError) {
            // too little heap left even to size them: the rest of the advice still holds
            return raise + release
        }
        if (largest.isEmpty()) {
            return "$raise No value of the session holds $LISTED_MB MB or more: the memory was taken by the cell's own " +
                "work, released now that it ended"
        }
        return "$raise The largest values of the session: ${largest.joinToString()}.$release"
    }

    /** Whether [error] or one of its causes is the heap running out. */
    fun isHeapExhausted(error: Throwable): Boolean {
        val seen = HashSet<Throwable>()
        return generateSequence(error) { it.cause }.takeWhile { seen.add(it) }.any(::isHeapSpace)
    }

    /** `name (Type, ~size)` of the [LISTED] largest of [values] holding at least [LISTED_MB] MB, largest first. */
    internal fun largest(values: List<Pair<String, Any?>>): List<String> {
        val sizes = ValueSizes()
        return values.asSequence()
            .filter { it.second != null }
            .map { (name, value) -> Triple(name, value, sizes.of(value)) }
            .filter { it.third.bytes >= LISTED_MB * BYTES_PER_MB }
            .sortedByDescending { it.third.bytes }
            .take(LISTED)
            .map { (name, value, size) -> "$name (${typeName(value)}, ${if (size.complete) "" else "at least "}~${format(size.bytes)})" }
            .toList()
    }

    /** `ArrayList`, `LongArray`, a snippet's class as declared. */
    private fun typeName(value: Any?): String {
        if (value == null) return "null"
        val kotlinName = runCatching { value::class.simpleName }.getOrNull()
        return kotlinName ?: SnippetNames.className(value.javaClass.name)
    }

    /** `2.9 GB`, `480 MB`, `12 KB`, `16 B` (of 1024). */
    internal fun format(bytes: Long): String = when {
        bytes >= BYTES_PER_GB -> "%.1f GB".format(java.util.Locale.ROOT, bytes.toDouble() / BYTES_PER_GB)
        bytes >= BYTES_PER_MB -> "${(bytes + BYTES_PER_MB / 2) / BYTES_PER_MB} MB"
        bytes >= BYTES_PER_KB -> "${(bytes + BYTES_PER_KB / 2) / BYTES_PER_KB} KB"
        else -> "$bytes B"
    }

    // Other OutOfMemoryErrors (Metaspace, native threads, direct buffers, an array past the VM's size limit) are
    // not about the heap limit: no hint would help them.
    private fun isHeapSpace(error: Throwable): Boolean =
        error is OutOfMemoryError && error.message.orEmpty().let { it.startsWith("Java heap space") || it.startsWith("GC overhead") }

    private const val LISTED = 3
    private const val LISTED_MB = 1L
    private const val BYTES_PER_KB = 1024L
    private const val BYTES_PER_MB = 1024L * BYTES_PER_KB
    private const val BYTES_PER_GB = 1024L * BYTES_PER_MB
}
