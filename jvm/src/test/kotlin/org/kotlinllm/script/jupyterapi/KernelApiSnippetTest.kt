package org.kotlinllm.script.jupyterapi

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.host.EventReader
import org.kotlinllm.script.host.HostSession
import org.kotlinllm.script.host.defaultSettings
import kotlin.test.assertEquals

/**
 * JetBrains' Kotlin kernel API is on the host classpath with the JSON runtime it needs, so a snippet compiles and runs
 * against its real classes by their own names (no default imports of it yet).
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KernelApiSnippetTest {

    private val session = HostSession.create(emptyMap(), defaultSettings())
    private val events = EventReader(session)

    @AfterAll
    fun close() = session.close()

    @Test
    fun `a snippet imports MimeTypes and builds the API's HTML result`() {
        val outcome = events.settled(
            session.submit(
                """
                import org.jetbrains.kotlinx.jupyter.api.MimeTypes
                val html = org.jetbrains.kotlinx.jupyter.api.HTML("<p>x</p>")
                listOf(MimeTypes.HTML, html::class.qualifiedName, html[MimeTypes.HTML]).joinToString(" | ")
                """.trimIndent(),
            ).snippetNumber,
        )
        outcome.result.assertValue()
        assertEquals("text/html | org.jetbrains.kotlinx.jupyter.api.MimeTypedResult | <p>x</p>", outcome.valueText)
    }
}
