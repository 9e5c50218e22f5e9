@file:JvmName("DisplayFunctions")
@file:Suppress("ktlint:standard:function-naming") // the names Kotlin notebooks call: DISPLAY, HTML, JSON, USE, …

package org.kotlinllm.script.runtime

import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import org.jetbrains.kotlinx.jupyter.api.DisplayResult
import org.jetbrains.kotlinx.jupyter.api.MimeTypedResult
import org.jetbrains.kotlinx.jupyter.api.MimeTypedResultEx
import org.jetbrains.kotlinx.jupyter.api.outputs.standardMetadataModifiers
import java.awt.image.BufferedImage
import java.io.ByteArrayOutputStream
import java.io.File
import java.net.URI
import java.util.Base64
import javax.imageio.ImageIO
import kotlinx.serialization.json.Json as KotlinxJson

/*
 * The display API of the snippets, default-imported by name, with the names Kotlin notebooks use. They are top-level
 * functions, not members of an implicit receiver, for the same K2 reason as ScopeFunctions.kt.
 */

/** Shows [value] below the cell now (`display_data`), rendered as a cell value is; [id] lets [UPDATE_DISPLAY] replace it. */
public fun DISPLAY(value: Any?, id: String? = null) {
    displayOfCaller().display(value, id, update = false)
}

/** Replaces every output shown with display [id] by [value] (`update_display_data`). */
public fun UPDATE_DISPLAY(value: Any?, id: String) {
    displayOfCaller().display(value, id, update = true)
}

/** Clears the cell's output (`clear_output`); with [wait], only once the next output arrives (no flicker). */
public fun clearOutput(wait: Boolean = false) {
    displayOfCaller().clearOutput(wait)
}

/**
 * LaTeX math, e.g. `LATEX("e^{i\\pi} + 1 = 0")`, typeset as a display formula: clients (MathJax) typeset only
 * what is inside math delimiters, so [latex] without any (`$$…$$`, `$…$`, `\[…\]`, `\(…\)`) is sent inside `$$…$$`.
 */
public fun LATEX(latex: String): MimeTypedResult = MimeTypedResult(mapOf("text/latex" to delimitedMath(latex)), false, null)

private const val DISPLAY_MATH = "\$\$"

/** Math delimiters, opening and closing: `$$…$$` is one case of `$…$`. */
private val MATH_DELIMITERS = listOf("\$" to "\$", "\\[" to "\\]", "\\(" to "\\)")

private fun delimitedMath(latex: String): String {
    val trimmed = latex.trim()
    val delimited = MATH_DELIMITERS.any { (open, close) ->
        trimmed.length >= open.length + close.length && trimmed.startsWith(open) && trimmed.endsWith(close)
    }
    return if (delimited || trimmed.isEmpty()) latex else DISPLAY_MATH + latex + DISPLAY_MATH
}

/**
 * JSON shown as a tree ([expanded]: opened), with its indented text as `text/plain`; [isolated] as for HTML. JetBrains'
 * signature, opened by default; a [json] that is not JSON throws [IllegalArgumentException] saying where.
 */
public fun JSON(json: String, isolated: Boolean = false, expanded: Boolean = true): MimeTypedResultEx {
    val parsed = try {
        Json.parse(json)
    } catch (e: Json.SyntaxError) {
        throw IllegalArgumentException("not valid JSON: ${e.message}")
    }
    val data = buildJsonObject {
        put("application/json", KotlinxJson.parseToJsonElement(Json.write(parsed)))
        put(MimeBundle.PLAIN, JsonPrimitive(Json.pretty(parsed)))
    }
    return MimeTypedResultEx(data, null, standardMetadataModifiers(isolatedHtml = isolated, expandedJson = expanded))
}

/**
 * An image, shown as its `image/…` data with its size as metadata and a one-line `text/plain`. [format] is `png`,
 * `jpeg`, `gif`, `svg`, … or a MIME type (`image/png`). A URL or file not embedded is shown as an HTML `<img>`
 * referring to it.
 */
public class Image private constructor(
    private val mime: String,
    private val bytes: ByteArray?,
    private val source: String?,
    private val width: Int?,
    private val height: Int?,
) {
    private constructor(loaded: Triple<String, ByteArray?, String?>) :
        this(loaded.first, loaded.second, loaded.third, null, null)

    /** The image at [url]; [embed] reads it now, else the client loads it. */
    public constructor(url: String, embed: Boolean = true) : this(
        if (embed) Triple(mimeOf(url.substringBefore('?')), URI(url).toURL().openStream().use { it.readBytes() }, null)
        else Triple(mimeOf(url.substringBefore('?')), null, url),
    )

    /** The image in [file]; [embed] reads it now, else the client loads it by its path. */
    public constructor(file: File, embed: Boolean = true) : this(
        if (embed) Triple(mimeOf(file.name), file.readBytes(), null) else Triple(mimeOf(file.name), null, file.path),
    )

    /** The image in [data], encoded as [format]. */
    public constructor(data: ByteArray, format: String) : this(Triple(mimeOf(format), data, null))

    /** [data] encoded as [outputFormat]. */
    public constructor(
        data: BufferedImage,
        outputFormat: String = "png",
    ) : this(Triple(mimeOf(outputFormat), encode(data, outputFormat), null))

    /** Shown [width] pixels wide. */
    public fun withWidth(width: Int): Image = Image(mime, bytes, source, width, height)

    /** Shown [height] pixels high. */
    public fun withHeight(height: Int): Image = Image(mime, bytes, source, width, height)

    internal fun bundle(): MimeBundle {
        val bytes = bytes
        if (bytes == null) {
            val size = listOfNotNull(width?.let { " width=\"$it\"" }, height?.let { " height=\"$it\"" }).joinToString("")
            val escaped = source.orEmpty().replace("&", "&amp;").replace("\"", "&quot;")
            return MimeBundle.of(linkedMapOf("text/plain" to "$mime at $source", "text/html" to "<img src=\"$escaped\"$size/>"))
        }
        val svg = mime == SVG
        val intrinsic = if (svg) null else runCatching { ImageIO.read(bytes.inputStream()) }.getOrNull()
        val shownWidth = width ?: intrinsic?.width
        val shownHeight = height ?: intrinsic?.height
        val size = listOfNotNull(shownWidth?.let { "width" to it }, shownHeight?.let { "height" to it }).toMap()
        val pixels = if (shownWidth != null && shownHeight != null) "$shownWidth×$shownHeight px, " else ""
        val content = if (svg) String(bytes, Charsets.UTF_8) else Base64.getEncoder().encodeToString(bytes)
        return MimeBundle(
            linkedMapOf("text/plain" to "$mime $pixels${MimeBundle.byteSize(bytes.size.toLong())}", mime to content),
            if (size.isEmpty()) emptyMap() else mapOf(mime to size),
        )
    }

    override fun toString(): String = bundle().plain

    internal companion object {
        const val SVG = "image/svg+xml"

        fun mimeOf(format: String): String {
            val lower = format.lowercase()
            if (lower.startsWith("image/")) return lower
            return when (val extension = lower.substringAfterLast('.')) {
                "jpg", "jpeg" -> "image/jpeg"
                "svg" -> SVG
                "tif", "tiff" -> "image/tiff"
                "ico" -> "image/x-icon"
                else -> "image/$extension"
            }
        }

        fun encode(image: BufferedImage, format: String): ByteArray {
            val name = mimeOf(format).removePrefix("image/")
            val out = ByteArrayOutputStream()
            require(ImageIO.write(image, name, out)) { "no image writer for the format '$format' (png, jpeg, gif and bmp are)" }
            return out.toByteArray()
        }
    }
}

/**
 * Renders the values of type [T] (and its subtypes) with [renderer], for the rest of the session: the cell values
 * and [DISPLAY]ed values after this snippet ran. [renderer] returns what to show instead: [HTML], [MIME], an [Image],
 * or any value, rendered in turn. The renderer registered last is tried first.
 */
public inline fun <reified T : Any> render(noinline renderer: (T) -> Any?) {
    registerRenderer(T::class.java, renderer)
}

@PublishedApi
internal fun registerRenderer(type: Class<*>, renderer: Function1<*, *>) {
    val caller = Throwable().stackTrace.firstOrNull { SNIPPET_FILE.matches(it.fileName.orEmpty()) }
    @Suppress("UNCHECKED_CAST")
    displayOfCaller().register(type, renderer as (Any) -> Any?, caller)
}

private val SNIPPET_FILE = Regex("snippet\\d+\\.kts")

/** The display of the session running the calling code; outside any session, text printed to System.out. */
private fun displayOfCaller(): DisplaySink = SessionContext.currentOrOnly()?.display ?: PrintedDisplay

/** Outside any session (a thread of none): the text of each display, printed. */
private object PrintedDisplay : DisplaySink {
    override fun display(value: Any?, id: String?, update: Boolean) {
        val text = when (value) {
            Unit -> return
            is DisplayResult -> DisplayBundles.of(value).plain
            is Image -> value.bundle().plain
            else -> value.toString()
        }
        println(text)
    }

    override fun clearOutput(wait: Boolean) = Unit

    override fun register(type: Class<*>, renderer: (Any) -> Any?, caller: StackTraceElement?) = Unit
}
