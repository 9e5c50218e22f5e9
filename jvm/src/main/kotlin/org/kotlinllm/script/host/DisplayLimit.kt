package org.kotlinllm.script.host

import org.kotlinllm.script.runtime.MimeBundle

/** How large the rich data of one display may be: a client (and an agent reading it) needs its text, not 50 MB. */
internal object DisplayLimit {
    /** The default of [HostSettings]' maxDisplayBytes. */
    const val DEFAULT_MAX_BYTES: Long = 10_000_000

    /**
     * [bundle] itself while the UTF-8 size of its data is at most [maxBytes] (or it has only `text/plain`, which the
     * output limits of the host bound); else its `text/plain` with a notice naming what was dropped.
     */
    internal fun bound(bundle: MimeBundle, maxBytes: Long): MimeBundle {
        if (bundle.data.keys.all { it == MimeBundle.PLAIN }) return bundle
        val sizes = bundle.data.mapValues { (_, content) -> content.toByteArray(Charsets.UTF_8).size.toLong() }
        if (sizes.values.sum() <= maxBytes) return bundle
        val dropped = sizes.filterKeys { it != MimeBundle.PLAIN }
        val notice = "[kotlin-llm] display cut: " +
            dropped.entries.joinToString(", ") { (mime, size) -> "$mime (${MimeBundle.byteSize(size)})" } +
            " not shown, past the limit of ${"%,d".format(java.util.Locale.ROOT, maxBytes)} bytes (setting max_display_bytes)"
        val plain = bundle.plain.take(maxBytes.coerceIn(0, Int.MAX_VALUE.toLong()).toInt())
        return MimeBundle(mapOf(MimeBundle.PLAIN to if (plain.isEmpty()) notice else "$plain\n$notice"))
    }
}
