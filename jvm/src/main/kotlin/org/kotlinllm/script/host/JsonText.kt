package org.kotlinllm.script.host

import org.kotlinllm.script.runtime.MimeBundle

/**
 * The content of a JSON MIME type in a bundle the engine sends ([DisplayEvent.data], [HostOutcome.valueData]): JSON
 * [text], which Jupyter sends parsed. The engine tells which types are JSON ([MimeBundle.isJson]); the host parses the
 * text once, where a map would cross to it value by value (seconds for a large plot's data through JPype).
 */
public class JsonText(public val text: String) {
    override fun toString(): String = text

    override fun equals(other: Any?): Boolean = other is JsonText && other.text == text

    override fun hashCode(): Int = text.hashCode()

    internal companion object {
        /** The data of [bundle] as the engine sends it: its JSON MIME types as [JsonText], the others as text. */
        fun dataOf(bundle: MimeBundle): Map<String, Any> =
            bundle.data.mapValues { (mime, content) -> if (MimeBundle.isJson(mime)) JsonText(content) else content }
    }
}
