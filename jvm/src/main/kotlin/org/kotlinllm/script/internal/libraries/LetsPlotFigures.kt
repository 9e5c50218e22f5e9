package org.kotlinllm.script.internal.libraries

import org.kotlinllm.script.internal.libraries.LibraryInternals.Lookup
import org.kotlinllm.script.runtime.MimeBundle
import java.awt.image.BufferedImage
import java.io.ByteArrayOutputStream
import java.util.Base64
import javax.imageio.ImageIO

/**
 * lets-plot's figures (`org.jetbrains.letsPlot.Figure`: a plot, a `gggrid`, a bunch) as SVG, drawn on the JVM by the
 * library's own static export (`PlotSvgExportCommon`, in plot-stem, which lets-plot-kotlin-jvm brings): no script and
 * no URL, so it shows offline. `image/svg+xml` is the SVG; `text/html` is the same SVG as an image (a `data:` URL),
 * not inline: JupyterLab prefers the HTML, and in an untrusted notebook its sanitizer keeps an image but strips
 * inline SVG down to its text; an image also keeps the SVG's style sheet (`text {…}`) off the page. `text/plain`
 * says what the figure shows, for a reader of text only (and the image's `alt`). Raster layers (`geomRaster`,
 * `geomImage`) become PNG data URLs, encoded with `javax.imageio`.
 */
internal object LetsPlotFigures : LibraryRenderer {
    /** The interface of what the renderer shows: a plot, a `gggrid`, a bunch. */
    const val FIGURE: String = "org.jetbrains.letsPlot.Figure"

    private const val MAX_LAYERS = 6
    private const val MAX_COLUMNS = 8
    private val rootSize = Regex("""^\s*<svg\b[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"""")

    override val library: String = "lets-plot"

    override fun match(hierarchy: Map<String, Class<*>>): Class<*>? = hierarchy[FIGURE]

    override fun render(value: Any, type: Class<*>): MimeBundle {
        val calls = LibraryCalls(type.classLoader)
        val spec = calls.call(Lookup.FIGURE_SPEC, null, value) as Map<*, *>
        val svg = calls.call(
            Lookup.FIGURE_SVG,
            null,
            spec,
            null, // the figure's own size
            pngEncoder(calls),
            false, // raster layers smoothed, as lets-plot's own SVG export draws them
        ) as String
        val text = describe(spec, svg)
        return MimeBundle(linkedMapOf(MimeBundle.PLAIN to text, "image/svg+xml" to svg, "text/html" to image(svg, text)))
    }

    /** [svg] as an HTML image of its own size, [text] its `alt`. */
    private fun image(svg: String, text: String): String {
        val size = rootSize.find(svg)?.let { " width=\"${number(it.groupValues[1])}\" height=\"${number(it.groupValues[2])}\"" }.orEmpty()
        val source = "data:image/svg+xml;base64," + Base64.getEncoder().encodeToString(svg.toByteArray())
        return "<img src=\"$source\"$size alt=\"${attribute(text)}\">"
    }

    private fun attribute(text: String): String =
        text.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;").replace(">", "&gt;")

    /** An `RGBEncoder` of the library's loader that makes PNG data URLs of raster layers. */
    private fun pngEncoder(calls: LibraryCalls): Any =
        calls.implement(Lookup.PNG_ENCODER) { proxy, method, args ->
            when (method.name) {
                "toDataUrl" -> pngDataUrl(args[0] as Int, args[1] as Int, args[2] as IntArray)
                "toString" -> "PNG data URLs (kotlin-llm)"
                "hashCode" -> System.identityHashCode(proxy)
                "equals" -> proxy === args?.firstOrNull()
                else -> throw UnsupportedOperationException("RGBEncoder.${method.name} is not available in the kotlin-llm kernel")
            }
        }

    /** [argb] (one int per pixel, row by row) as a `data:image/png;base64,` URL. */
    fun pngDataUrl(width: Int, height: Int, argb: IntArray): String {
        val image = BufferedImage(width, height, BufferedImage.TYPE_INT_ARGB)
        image.setRGB(0, 0, width, height, argb, 0, width)
        val out = ByteArrayOutputStream()
        check(ImageIO.write(image, "png", out)) { "no PNG writer in javax.imageio" }
        return "data:image/png;base64," + Base64.getEncoder().encodeToString(out.toByteArray())
    }

    /**
     * One line on the figure, from its specification: `lets-plot figure "Title", 600×400 px: point(x=x, y=y) +
     * line(x=x, y=y); data 4 rows × 2 columns [x, y]`, or for a grid or bunch each figure's in brackets.
     */
    fun describe(spec: Map<*, *>, svg: String): String {
        val size = rootSize.find(svg)?.let { ", ${number(it.groupValues[1])}×${number(it.groupValues[2])} px" }.orEmpty()
        return when (spec["kind"]) {
            "subplots" -> figures("grid", (spec["figures"] as? List<*>).orEmpty(), size)
            "ggbunch" -> figures("bunch", (spec["items"] as? List<*>).orEmpty().map { (it as? Map<*, *>)?.get("feature_spec") }, size)
            else -> "lets-plot figure${title(spec)}$size: ${plot(spec)}"
        }
    }

    private fun figures(kind: String, figures: List<*>, size: String): String {
        val plots = figures.filterIsInstance<Map<*, *>>()
        return "lets-plot $kind of ${plots.size} figure${if (plots.size == 1) "" else "s"}$size: " +
            plots.joinToString("; ") { figure -> "[" + title(figure).trim().let { if (it.isEmpty()) "" else "$it: " } + plot(figure) + "]" }
    }

    private fun title(plot: Map<*, *>): String = ((plot["ggtitle"] as? Map<*, *>)?.get("text") as? String)?.let { " \"$it\"" }.orEmpty()

    private fun plot(plot: Map<*, *>): String {
        val shared = (plot["mapping"] as? Map<*, *>).orEmpty()
        val layers = (plot["layers"] as? List<*>).orEmpty().filterIsInstance<Map<*, *>>()
        val described = layers.take(MAX_LAYERS).joinToString(" + ") { layer ->
            val mapping = (shared + (layer["mapping"] as? Map<*, *>).orEmpty()).entries.joinToString(", ") { "${it.key}=${it.value}" }
            "${layer["geom"] ?: "layer"}($mapping)"
        } + if (layers.size > MAX_LAYERS) " + ${layers.size - MAX_LAYERS} more layers" else ""
        val data = (plot["data"] as? Map<*, *>)?.takeIf { it.isNotEmpty() }
            ?: layers.firstNotNullOfOrNull { (it["data"] as? Map<*, *>)?.takeIf { data -> data.isNotEmpty() } }
        return (if (layers.isEmpty()) "no layers" else described) + (data?.let { "; ${data(it)}" }.orEmpty())
    }

    private fun data(data: Map<*, *>): String {
        val rows = data.values.maxOfOrNull { (it as? Collection<*>)?.size ?: 0 } ?: 0
        val names = data.keys.take(MAX_COLUMNS).joinToString(", ") + if (data.size > MAX_COLUMNS) ", …" else ""
        return "data $rows row${if (rows == 1) "" else "s"} × ${data.size} column${if (data.size == 1) "" else "s"} [$names]"
    }

    private fun number(text: String): String =
        text.toDoubleOrNull()?.let { if (it == Math.floor(it)) it.toLong().toString() else text } ?: text
}
