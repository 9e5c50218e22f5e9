package org.kotlinllm.script.host

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.assertValue
import kotlin.test.assertEquals

/** Values of JetBrains' Kotlin notebook API (on the classpath here) shown as that kernel shows them. */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JupyterApiInteropTest {

    private val session = HostSession.create(emptyMap(), defaultSettings())
    private val events = EventReader(session)

    @AfterAll
    fun close() = session.close()

    private fun value(code: String): HostOutcome {
        val outcome = events.settled(session.submit(code).snippetNumber)
        outcome.result.assertValue()
        return outcome
    }

    @Test
    fun `a DisplayResult is shown with its data, metadata and id, and a text added`() {
        val html = value("org.jetbrains.kotlinx.jupyter.api.HTML(\"<b>jb</b>\")")
        assertEquals(mapOf("text/plain" to "<b>jb</b>", "text/html" to "<b>jb</b>"), html.valueData)
        val number = session.submit(
            "DISPLAY(org.jetbrains.kotlinx.jupyter.api.MimeTypedResult(mapOf(\"text/markdown\" to \"*md*\"), false, \"jb-id\"))",
        ).snippetNumber
        events.settled(number)
        val display = events.events.filterIsInstance<DisplayEvent>().single { it.snippetNumber == number }
        assertEquals("jb-id", display.displayId)
        assertEquals(mapOf("text/plain" to "*md*", "text/markdown" to "*md*"), display.data)
    }

    @Test
    fun `a Renderable is rendered, and HTML is the API's own with or without its star import`() {
        val rendered = value(
            """
            import org.jetbrains.kotlinx.jupyter.api.*
            class Card(val title: String) : Renderable {
                override fun render(notebook: Notebook): DisplayResult = org.jetbrains.kotlinx.jupyter.api.MIME("text/html" to "<h1>${'$'}title</h1>", "text/plain" to title)
            }
            Card("hello")
            """.trimIndent(),
        )
        assertEquals(mapOf("text/html" to "<h1>hello</h1>", "text/plain" to "hello"), rendered.valueData)
        val imported = value("import org.jetbrains.kotlinx.jupyter.api.*\nHTML(\"<i>x</i>\")::class.qualifiedName")
        assertEquals("org.jetbrains.kotlinx.jupyter.api.MimeTypedResult", imported.valueText)
        assertEquals("org.jetbrains.kotlinx.jupyter.api.MimeTypedResult", value("HTML(\"<i>x</i>\")::class.qualifiedName").valueText)
    }
}
