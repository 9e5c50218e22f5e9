package org.kotlinllm.script.jupyterapi

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import kotlin.test.assertEquals

/**
 * JetBrains' Kotlin kernel API is on the host classpath with the JSON runtime it needs, so a snippet compiles and runs
 * against its real classes by their own names (no default imports of it yet).
 */
@Timeout(300)
class KernelApiSnippetTest : OneSessionTest() {

    @Test
    fun `a snippet imports MimeTypes and builds the API's HTML result`() {
        val outcome = value(
            """
            import org.jetbrains.kotlinx.jupyter.api.MimeTypes
            val html = org.jetbrains.kotlinx.jupyter.api.HTML("<p>x</p>")
            listOf(MimeTypes.HTML, html::class.qualifiedName, html[MimeTypes.HTML]).joinToString(" | ")
            """,
        )
        assertEquals("text/html | org.jetbrains.kotlinx.jupyter.api.MimeTypedResult | <p>x</p>", outcome.valueText)
    }
}
