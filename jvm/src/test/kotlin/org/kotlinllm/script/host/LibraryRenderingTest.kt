package org.kotlinllm.script.host

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.TestMethodOrder
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.RenderedLibraries.DATAFRAME_CORE
import org.kotlinllm.script.RenderedLibraries.JARS
import org.kotlinllm.script.RenderedLibraries.LETS_PLOT
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.testLibraries
import java.nio.file.Files
import java.nio.file.Path
import java.util.Base64
import kotlin.io.path.isRegularFile
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * The built-in renderers of DataFrame and lets-plot, on the real artifacts: those scripts/setup.sh fetched into
 * build/libraries-m2 (tests/libraries.py), served to the session as a `file:` repository, so the test runs offline.
 * DataFrame comes as `dataframe-core`, the part users write when they want no readers; the kernel test loads the
 * whole `dataframe`.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class LibraryRenderingTest {

    private val libraries = LibrarySession("library-rendering", *JARS.toTypedArray())

    @AfterAll
    fun close() = libraries.close()

    private fun run(code: String): Pair<HostOutcome, String> {
        val ran = libraries.run(code)
        ran.outcome.result.assertValue()
        return ran.outcome to ran.stderr
    }

    private fun data(code: String): Map<String, String> {
        val data = run(code).first.valueData.ifEmpty { fail("no bundle for: $code") }
        return data.mapValues { (mime, content) -> content as? String ?: fail("$mime is not text") }
    }

    private fun text(code: String): String = run(code).first.valueText.orEmpty()

    private val dataFrame by lazy {
        run(
            "@file:DependsOn(\"$DATAFRAME_CORE\")\n" +
                "import org.jetbrains.kotlinx.dataframe.*\nimport org.jetbrains.kotlinx.dataframe.api.*\n" +
                "val df = dataFrameOf(\"name\", \"age\", \"city\")(\"Alice\", 15, \"Rome\", \"Bob\", 20, \"Oslo\", \"Charlie\", 35, \"Rome\")",
        )
    }

    private val letsPlot by lazy {
        run(
            "@file:DependsOn(\"$LETS_PLOT\")\n" +
                "import org.jetbrains.letsPlot.*\nimport org.jetbrains.letsPlot.geom.*\nimport org.jetbrains.letsPlot.label.*\n" +
                "val points = mapOf(\"x\" to listOf(1, 2, 3, 4), \"y\" to listOf(2, 4, 3, 5))",
        )
    }

    /** Every URL of [html] that is not an XML namespace's (`xmlns="http://www.w3.org/2000/svg"`, a name, never loaded). */
    private fun urls(html: String): List<String> =
        Regex("""https?://[^\s"'<>)]+""").findAll(html).map { it.value }.filterNot { it.startsWith("http://www.w3.org/") }.toList()

    private fun assertOffline(html: String) {
        assertEquals(emptyList(), urls(html))
        assertFalse(Regex("""<script[^>]*\ssrc\s*=""", RegexOption.IGNORE_CASE).containsMatchIn(html), "a script loaded from elsewhere")
        assertFalse(Regex("""<link\b""", RegexOption.IGNORE_CASE).containsMatchIn(html), "a style sheet loaded from elsewhere")
    }

    @Test
    fun `a DataFrame is an HTML table that needs no network, and its toString table as text`() {
        dataFrame
        val bundle = data("df")
        assertEquals(listOf("text/plain", "text/html"), bundle.keys.toList())
        assertEquals(text("df.toString().trimEnd()"), bundle.getValue("text/plain"))
        val html = bundle.getValue("text/html")
        for (cell in listOf("Alice", "Charlie", "Oslo", "35")) assertTrue(">$cell<" in html, "$cell in the table: $html")
        assertOffline(html)
        // the static table an untrusted notebook shows, and the script that draws the interactive one when trusted
        assertTrue(Regex("""<table class="dataframe" id="static_df_[-\d]+"><thead>""").containsMatchIn(html), html)
        assertTrue("<script>" in html && "DataFrame [3 x 3]" in html, html)
        // the library's style sheet styles this output only: no rule for every td, no variables on the page's root
        val style = html.substringAfter("<style type=\"text/css\">").substringBefore("</style>")
        val selectors = Regex("""(?m)^([^{}\n]+?)\s*[{,]\s*$""").findAll(style).map { it.groupValues[1].trim() }.toList()
        assertTrue(selectors.isNotEmpty(), style)
        for (selector in selectors) assertTrue(".kotlin-llm-dataframe" in selector, "unscoped selector '$selector'")
        assertTrue(html.startsWith("<div class=\"kotlin-llm-dataframe\">"), html)
    }

    @Test
    fun `a large frame shows its first 20 rows, in HTML and text, and says how many there are`() {
        dataFrame
        val bundle = data("(0 until 1000).toList().toDataFrame { \"i\" from { it }; \"s\" from { \"row\$it\" } }")
        val html = bundle.getValue("text/html")
        assertTrue(">row19<" in html, html)
        assertFalse(">row20<" in html, "row 21 is shown")
        assertTrue("showing only top 20 of 1000 rows" in html && "DataFrame [1000 x 2]" in html, html)
        val lines = bundle.getValue("text/plain").lines()
        assertEquals(1 + 20 + 1, lines.size, lines.joinToString("\n"))
        assertEquals(listOf("i", "s"), lines.first().trim().split(Regex("\\s+")))
        assertEquals(listOf("19", "19", "row19"), lines[20].trim().split(Regex("\\s+")))
        assertEquals("… 1000 rows × 2 columns, the first 20 shown", lines.last())
    }

    @Test
    fun `rows, columns, groupBy, pivot and format show their DataFrame form`() {
        dataFrame
        val row = data("df[1]")
        assertEquals("{ name:Bob, age:20, city:Oslo }", row.getValue("text/plain"))
        assertTrue(">Bob<" in row.getValue("text/html") && ">Alice<" !in row.getValue("text/html"), row.getValue("text/html"))
        val column = data("df[\"age\"]")
        assertEquals(text("df[\"age\"].toString().trimEnd()"), column.getValue("text/plain"))
        assertTrue(">35<" in column.getValue("text/html"), column.getValue("text/html"))
        val grouped = data("df.groupBy(\"city\")")
        assertEquals(text("df.groupBy(\"city\").toDataFrame().toString().trimEnd()"), grouped.getValue("text/plain"))
        assertTrue(">Rome<" in grouped.getValue("text/html"), grouped.getValue("text/html"))
        val pivot = data("df.pivot(\"city\")")
        assertEquals(text("df.pivot(\"city\").frames().toDataFrame().toString().trimEnd()"), pivot.getValue("text/plain"))
        val counted = data("df.groupBy(\"city\").pivot(\"name\").count()")
        assertTrue("city" in counted.getValue("text/plain") && "Alice:1" in counted.getValue("text/plain"), counted.getValue("text/plain"))
        val formatted = data("df.format(\"age\").with { background(red) }")
        assertEquals(text("df.toString().trimEnd()"), formatted.getValue("text/plain"))
        assertTrue("background-color:#ff0000" in formatted.getValue("text/html"), formatted.getValue("text/html"))
        for (bundle in listOf(row, column, grouped, pivot, counted, formatted)) assertOffline(bundle.getValue("text/html"))
    }

    @Test
    fun `a lets-plot figure is SVG, the same SVG in HTML, and a line saying what it shows`() {
        letsPlot
        val bundle = data("letsPlot(points) + geomPoint { x = \"x\"; y = \"y\" } + geomLine { x = \"x\"; y = \"y\" } + ggtitle(\"Growth\")")
        assertEquals(listOf("text/plain", "image/svg+xml", "text/html"), bundle.keys.toList())
        assertEquals(
            "lets-plot figure \"Growth\", 600×400 px: point(x=x, y=y) + line(x=x, y=y); data 4 rows × 2 columns [x, y]",
            bundle.getValue("text/plain"),
        )
        val svg = bundle.getValue("image/svg+xml")
        assertTrue(svg.startsWith("<svg") && svg.trimEnd().endsWith("</svg>"), svg.take(200))
        assertTrue(Regex(""">\s*Growth\s*<""").containsMatchIn(svg), "the title is drawn")
        // the same SVG as an image: an untrusted notebook keeps it, and its style sheet stays in it
        val html = bundle.getValue("text/html")
        val image = Regex("""^<img src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)" width="600" height="400" alt="([^"]*)">$""")
            .matchEntire(html) ?: fail(html.take(300))
        assertEquals(svg, String(Base64.getDecoder().decode(image.groupValues[1]), Charsets.UTF_8))
        assertEquals(bundle.getValue("text/plain").replace("\"", "&quot;"), image.groupValues[2])
        for (output in listOf(svg, html)) {
            assertOffline(output)
            assertFalse("<script" in output, "a script in the figure")
        }
    }

    @Test
    fun `a raster layer is a PNG data URL, a grid names its figures`() {
        letsPlot
        val raster = data(
            "letsPlot(mapOf(\"x\" to listOf(1, 2, 1, 2), \"y\" to listOf(1, 1, 2, 2), \"v\" to listOf(1, 2, 3, 4))) + " +
                "geomRaster { x = \"x\"; y = \"y\"; fill = \"v\" }",
        )
        assertTrue(
            "xlink:href=\"data:image/png;base64,iVBORw0KGgo" in raster.getValue("image/svg+xml"),
            raster.getValue("image/svg+xml").take(3000),
        )
        val grid = text("gggrid(listOf(letsPlot(points) + geomPoint { x = \"x\"; y = \"y\" }, letsPlot(points) + geomBar { x = \"x\" }))")
        assertEquals(
            "lets-plot grid of 2 figures, 900×400 px: [point(x=x, y=y); data 4 rows × 2 columns [x, y]]; " +
                "[bar(x=x); data 4 rows × 2 columns [x, y]]",
            grid,
        )
    }

    @Test
    fun `a built-in renderer that fails leaves the value as text and says why`() {
        letsPlot
        val (outcome, stderr) = run("val broken = letsPlot(points) + geomPoint { x = \"nope\" }\nbroken")
        assertEquals(listOf("text/plain"), outcome.valueData.keys.toList())
        assertEquals(text("broken.toString()"), outcome.valueText)
        assertTrue(
            "[kotlin-llm] the built-in lets-plot renderer threw java.lang.RuntimeException: Variable not found: 'nope'." in stderr,
            stderr,
        )
    }

    @Test
    @Order(Int.MAX_VALUE) // its renderer stays for the session: the other tests run before it
    fun `a user's renderer comes before the built-in one`() {
        dataFrame
        run("render<DataFrame<*>> { \"a frame of \${it.rowsCount()} rows\" }")
        assertEquals(mapOf("text/plain" to "a frame of 3 rows"), data("df"))
    }
}
