package org.kotlinllm.script.runtime

import kotlinx.serialization.json.JsonObject
import org.jetbrains.kotlinx.jupyter.api.DisplayResult

/**
 * One rich output: [data] maps MIME types to their content as text (JSON MIME types as JSON text, binary images as
 * base64), [metadata] is the output's metadata (e.g. an image's size under its MIME type). [explicitPlain] tells
 * whether `text/plain` was given rather than derived; [id] is a display id the value carries itself.
 */
internal class MimeBundle(
    val data: Map<String, String>,
    val metadata: Map<String, Any?> = emptyMap(),
    val explicitPlain: Boolean = true,
    val id: String? = null,
) {
    val plain: String get() = data[PLAIN].orEmpty()

    /** The same bundle with [text] as its `text/plain` (first, as Jupyter clients list it). */
    fun withPlain(text: String): MimeBundle =
        MimeBundle(linkedMapOf(PLAIN to text) + (data - PLAIN), metadata, explicitPlain = true, id)

    /** [metadata] as JSON values, as a client reads it: numbers as `Long` or `Double`, other objects as their text. */
    @Suppress("UNCHECKED_CAST") // the JSON text of a map is an object
    fun jsonMetadata(): Map<String, Any?> = Json.parse(Json.write(metadata)) as Map<String, Any?>

    override fun toString(): String = "MimeBundle(${data.keys})"

    companion object {
        const val PLAIN: String = "text/plain"
        private val JSON_TYPE = Regex("^application/(.*\\+)?json$")

        /** Whether [mime] carries JSON (sent unpacked, not as a string), by Jupyter's rule. */
        fun isJson(mime: String): Boolean = JSON_TYPE.matches(mime)

        /**
         * A bundle of [data] with a `text/plain` added when missing: the source of markdown, LaTeX or HTML, else a
         * description of an image, else the list of MIME types; never base64 or a JSON dump.
         */
        fun of(data: Map<String, String>, metadata: Map<String, Any?> = emptyMap(), id: String? = null): MimeBundle {
            if (PLAIN in data) return MimeBundle(data, metadata, explicitPlain = true, id)
            val derived = listOf("text/markdown", "text/latex", "text/html").firstNotNullOfOrNull { data[it] }
                ?: data.keys.firstOrNull {
                    it.startsWith("image/")
                }?.let { mime -> describeImage(mime, data.getValue(mime), metadata[mime]) }
                ?: data.keys.joinToString(", ", prefix = "[", postfix = "]")
            return MimeBundle(linkedMapOf(PLAIN to derived) + data, metadata, explicitPlain = false, id)
        }

        private fun describeImage(mime: String, content: String, metadata: Any?): String {
            val size = (metadata as? Map<*, *>)?.let { m ->
                val width = m["width"]
                val height = m["height"]
                if (width != null && height != null) "$width×$height px, " else null
            }.orEmpty()
            val bytes = if (mime == "image/svg+xml") content.toByteArray().size.toLong() else content.length.toLong() * 3 / 4
            return "$mime $size${byteSize(bytes)}"
        }

        /** `812 B`, `3.2 kB`, `1.5 MB`. */
        fun byteSize(bytes: Long): String = when {
            bytes < 1000 -> "$bytes B"
            bytes < 1_000_000 -> "%.1f kB".format(java.util.Locale.ROOT, bytes / 1000.0)
            else -> "%.1f MB".format(java.util.Locale.ROOT, bytes / 1_000_000.0)
        }
    }
}

/** JetBrains' display results (`HTML(…)`, `MIME(…)`, `JSON(…)`, a library's `DisplayResult`) as the engine's bundles. */
internal object DisplayBundles {
    private val EMPTY = JsonObject(emptyMap())

    /** The bundle of [result]: its `data`, `metadata` and display id as its `toJson` writes them for a client. */
    fun of(result: DisplayResult): MimeBundle {
        // read back as the engine's own JSON values: one model of display data whichever API made it
        val parsed = Json.parse(result.toJson(EMPTY, null).toString()) as? Map<*, *> ?: return MimeBundle.of(emptyMap())
        val data = LinkedHashMap<String, String>()
        (parsed["data"] as? Map<*, *>)?.forEach { (mime, content) ->
            val name = mime.toString()
            data[name] = if (content is String && !MimeBundle.isJson(name)) content else Json.write(content)
        }
        @Suppress("UNCHECKED_CAST")
        val metadata = (parsed["metadata"] as? Map<String, Any?>).orEmpty()
        val id = (parsed["transient"] as? Map<*, *>)?.get("display_id") as? String ?: result.id
        return MimeBundle.of(data, metadata, id)
    }
}
