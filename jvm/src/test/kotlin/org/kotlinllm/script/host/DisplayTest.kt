package org.kotlinllm.script.host

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.ExecutionPhase
import org.kotlinllm.script.assertError
import org.kotlinllm.script.assertValue
import java.util.Base64
import java.util.concurrent.CountDownLatch
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** The display API in snippets: events in order and tagged, value bundles, renderers, images, the size bound. */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DisplayTest {

    private val gate = CountDownLatch(1)
    private val session = HostSession.create(mapOf("gate" to gate), defaultSettings())
    private val events = EventReader(session)

    @AfterAll
    fun close() = session.close()

    /** Runs [code] as the next snippet; its outcome and every event of it, in order. */
    private fun run(code: String): Pair<HostOutcome, List<HostEvent>> {
        val number = session.submit(code).snippetNumber
        val outcome = events.settled(number)
        return outcome to events.events.filter { it.snippetNumber == number }
    }

    private fun value(code: String): HostOutcome = run(code).first.also { it.result.assertValue() }

    private fun timeline(number: Int): List<String> = events.timeline().filter { it.startsWith("$number ") }

    @Test
    fun `displays come in order with the output, with their ids, and need no import`() {
        val (_, snippetEvents) = run(
            """
            println("before")
            DISPLAY(HTML("<b>bold</b>"))
            println("between")
            DISPLAY("counter 1", "counter")
            UPDATE_DISPLAY(MIME("text/markdown" to "**2**"), "counter")
            clearOutput(wait = true)
            notebook.clearOutput()
            System.err.println("after")
            """.trimIndent(),
        )
        val number = snippetEvents.first().snippetNumber
        assertEquals(
            listOf(
                "$number stdout: before\n",
                "$number display [text/plain, text/html]",
                "$number stdout: between\n",
                "$number display [text/plain] id=counter",
                "$number update [text/plain, text/markdown] id=counter",
                "$number clear wait=true",
                "$number clear wait=false",
                "$number stderr: after\n",
                "$number settled",
            ),
            timeline(number),
        )
        val displays = snippetEvents.filterIsInstance<DisplayEvent>()
        assertEquals(mapOf("text/plain" to "<b>bold</b>", "text/html" to "<b>bold</b>"), displays[0].data)
        assertNull(displays[0].displayId)
        assertFalse(displays[0].update)
        assertEquals(emptyMap(), displays[0].metadata)
        assertEquals("counter 1", displays[1].data["text/plain"])
        assertTrue(displays[2].update)
        assertEquals("**2**", displays[2].data["text/plain"])
    }

    @Test
    fun `displays of a launched coroutine are tagged with the snippet running, else the last that ran`() {
        val (_, first) = run("val late = launch { gate.await(); DISPLAY(\"late\") }")
        val launched = first.first().snippetNumber
        val (_, second) = run("DISPLAY(\"now\")")
        val later = second.first().snippetNumber
        gate.countDown()
        events.readUntil("the late display") { all -> all.any { it is DisplayEvent && it.data["text/plain"] == "late" } }
        val late = events.events.filterIsInstance<DisplayEvent>().single { it.data["text/plain"] == "late" }
        assertEquals(later, late.snippetNumber)
        assertTrue(launched < later)
    }

    @Test
    fun `a plain value's bundle is its toString and a display value's bundle its data`() {
        val plain = value("\"abc\"")
        assertEquals(mapOf("text/plain" to "abc"), plain.valueData)
        assertEquals(emptyMap(), plain.valueMetadata)
        assertEquals("abc", plain.valueText)
        val unit = value("val unitValue = 1")
        assertEquals(emptyMap(), unit.valueData)
        val html = value("HTML(\"<i>x</i>\", isolated = true)")
        assertEquals(mapOf("text/plain" to "<i>x</i>", "text/html" to "<i>x</i>"), html.valueData)
        assertEquals(mapOf("text/html" to mapOf("isolated" to true)), html.valueMetadata)
        val latex = value("LATEX(\"x^2\")")
        assertEquals(mapOf("text/plain" to "\$\$x^2\$\$", "text/latex" to "\$\$x^2\$\$"), latex.valueData)
    }

    @Test
    fun `LATEX without math delimiters is sent inside $$, with them as it is`() {
        val texts = listOf("e^{i\\\\pi} + 1 = 0", "\\\$\\\$x^2\\\$\\\$", "\\\$x\\\$", " \\\\[x\\\\] ", "\\\\(x\\\\)", "")
        val sent = texts.map { value("LATEX(\"$it\")").valueData["text/latex"] }
        assertEquals(listOf("\$\$e^{i\\pi} + 1 = 0\$\$", "\$\$x^2\$\$", "\$x\$", " \\[x\\] ", "\\(x\\)", ""), sent)
    }

    @Test
    fun `JSON is sent as JSON with readable text, and invalid JSON is a located error`() {
        val json = value("JSON(\"\"\"{\"a\": [1, 2.5, null], \"b\": \"x\"}\"\"\")")
        assertEquals(JsonText("{\"a\":[1,2.5,null],\"b\":\"x\"}"), json.valueData["application/json"])
        assertEquals("{\n  \"a\": [\n    1,\n    2.5,\n    null\n  ],\n  \"b\": \"x\"\n}", json.valueText)
        assertEquals(mapOf("application/json" to mapOf("expanded" to true)), json.valueMetadata)
        val (outcome, snippetEvents) = run("val ok = 1\nJSON(\"{bad\")")
        val number = snippetEvents.first().snippetNumber
        val error = outcome.result.assertError(ExecutionPhase.EVALUATION)
        assertTrue("expected a string key at line 1, column 2 of the JSON text" in error.message, error.message)
        assertTrue("snippet$number.kts:2" in error.message, error.message)
        assertEquals("java.lang.IllegalArgumentException", outcome.ename)
        assertTrue(error.message.startsWith("java.lang.IllegalArgumentException: not valid JSON: "), error.message)
    }

    @Test
    fun `a BufferedImage value is a PNG with its size, and its text no base64`() {
        val outcome = value("java.awt.image.BufferedImage(120, 80, java.awt.image.BufferedImage.TYPE_INT_ARGB)")
        val data = outcome.valueData
        assertEquals(listOf("text/plain", "image/png"), data.keys.toList())
        val png = Base64.getDecoder().decode(data.getValue("image/png") as String)
        assertEquals("PNG", String(png, 1, 3))
        assertEquals(mapOf("image/png" to mapOf("width" to 120L, "height" to 80L)), outcome.valueMetadata)
        assertTrue(Regex("BufferedImage 120×80 px, image/png [0-9.]+ (B|kB)").matches(outcome.valueText.orEmpty()), outcome.valueText)
    }

    @Test
    fun `Image takes bytes, a BufferedImage or a file, and a user's import of java awt Image wins`() {
        val fromBytes = value(
            """
            val pixels = java.awt.image.BufferedImage(4, 3, java.awt.image.BufferedImage.TYPE_INT_RGB)
            val bytes = java.io.ByteArrayOutputStream().also { javax.imageio.ImageIO.write(pixels, "png", it) }.toByteArray()
            Image(bytes, "png")
            """.trimIndent(),
        )
        assertEquals(mapOf("image/png" to mapOf("width" to 4L, "height" to 3L)), fromBytes.valueMetadata)
        assertTrue(fromBytes.valueText.orEmpty().startsWith("image/png 4×3 px, "), fromBytes.valueText)
        val fromImage = value("Image(pixels, \"image/png\").withWidth(40)")
        assertEquals(mapOf("image/png" to mapOf("width" to 40L, "height" to 3L)), fromImage.valueMetadata)
        val fromFile = value(
            "val file = java.io.File.createTempFile(\"dot\", \".png\").also { it.writeBytes(bytes); it.deleteOnExit() }\nImage(file)",
        )
        assertEquals(fromBytes.valueData, fromFile.valueData)
        val awt = value("import java.awt.Image\nval awtImage: Image = pixels\nawtImage.getWidth(null)")
        assertEquals("4", awt.valueText)
    }

    @Test
    fun `renderers apply most recent first, register at evaluation, and a failing one falls back to text`() {
        value("data class Point(val x: Int)\nrender<Point> { HTML(\"<i>\${it.x}</i>\") }")
        val html = value("Point(3)")
        assertEquals(mapOf("text/plain" to "Point(x=3)", "text/html" to "<i>3</i>"), html.valueData)
        run("USE { render<Point> { \"second \${it.x}\" } }")
        assertEquals(mapOf("text/plain" to "second 3"), value("Point(3)").valueData)
        run("render<Point> { \"never\" }\nundefinedName").first.result.assertError(ExecutionPhase.COMPILATION)
        assertEquals("second 3", value("Point(3)").valueText)
        run("render<Point> { \"kept \${it.x}\" }\nerror(\"after registering\")").first.result.assertError(ExecutionPhase.EVALUATION)
        assertEquals("kept 3", value("Point(3)").valueText)
        val (_, displayed) = run("DISPLAY(Point(4))")
        assertEquals("kept 4", displayed.filterIsInstance<DisplayEvent>().single().data["text/plain"])

        run("class Broken { override fun toString() = \"Broken!\" }\nrender<Broken> { error(\"bad renderer\") }")
        val (broken, brokenEvents) = run("Broken()")
        assertEquals(mapOf("text/plain" to "Broken!"), broken.valueData)
        val stderr = brokenEvents.filterIsInstance<OutputEvent>().joinToString("") { it.text }
        val registeredAt = brokenEvents.first().snippetNumber - 1
        assertTrue(
            "[kotlin-llm] render<Broken> registered by snippet$registeredAt.kts:2 threw " +
                "java.lang.IllegalStateException: bad renderer; shown as text" in
                stderr,
            stderr,
        )

        run("class Loop { override fun toString() = \"Loop!\" }\nrender<Loop> { it }")
        val (loop, loopEvents) = run("Loop()")
        assertEquals("Loop!", loop.valueText)
        assertTrue("did not end after 8 renderers" in loopEvents.filterIsInstance<OutputEvent>().joinToString("") { it.text })
    }

    @Test
    fun `past maxDisplayBytes a bundle keeps its text with a notice, and plain text is never cut`() {
        HostSession.create(emptyMap(), HostSettings.builder().maxDisplayBytes(100).build()).use { small ->
            val reader = EventReader(small)
            small.submit("HTML(\"x\".repeat(150))")
            val html = reader.settled(1)
            assertEquals(listOf("text/plain"), html.valueData.keys.toList())
            assertTrue(
                html.valueText.orEmpty().endsWith(
                    "[kotlin-llm] display cut: text/html (150 B) not shown, past the limit of 100 bytes (setting max_display_bytes)",
                ),
                html.valueText,
            )
            small.submit("\"y\".repeat(500)")
            assertEquals("y".repeat(500), reader.settled(2).valueData["text/plain"])
        }
    }
}
