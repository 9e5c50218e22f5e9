package org.kotlinllm.script.jupyterapi

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.ExecutionPhase
import org.kotlinllm.script.assertError
import java.nio.file.Files
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** Library descriptors in JetBrains' JSON format, through `loadLibraryDescriptor` and `%use @file[…]`. */
@Timeout(600)
class DescriptorLoadingTest : OneSessionTest() {

    private val repository = IntegrationFixtures.repository().toURI().toString()

    @Test
    fun `init, initCell, imports and renderers of a descriptor, with options for its properties`() {
        val file = Files.createTempFile("descriptor", ".json")
        Files.writeString(
            file,
            """
            {
              "properties": {"answer": "1"},
              "imports": ["java.util.concurrent.atomic.AtomicInteger"],
              "init": ["val fromDescriptor = ${'$'}answer + 2"],
              "initCell": ["val cellsSeen = 1"],
              "renderers": {"java.util.concurrent.atomic.AtomicInteger": "HTML(\"<i>\" + ${'$'}it.get() + \"</i>\")"}
            }
            """.trimIndent(),
        )
        try {
            value("loadLibraryDescriptor(java.io.File(\"${file.toString().replace("\\", "/")}\").readText(), mapOf(\"answer\" to \"40\"))")
        } finally {
            Files.delete(file)
        }
        assertEquals("42", value("fromDescriptor").valueText)
        assertEquals("<i>7</i>", value("AtomicInteger(7)").valueData["text/html"])
        assertEquals("1", value("cellsSeen").valueText)
    }

    @Test
    fun `a descriptor's dependencies and repositories resolve, and %use reads one from a file`() {
        val file = Files.createTempFile("fx-descriptor", ".json")
        Files.writeString(
            file,
            """{"repositories": ["$repository"], "dependencies": ["${IntegrationFixtures.FX}"], "imports": ["com.example.fx.Fx"]}""",
        )
        try {
            assertEquals("<b>fx 9</b>", value("%use @file[$file]\nFx(9)").valueData["text/html"])
        } finally {
            Files.delete(file)
        }
    }

    @Test
    fun `a malformed descriptor is a located error and the session goes on`() {
        val file = Files.createTempFile("broken-descriptor", ".json")
        Files.writeString(file, "{\"dependencies\": [1]}")
        try {
            val outcome = run("%use @file[$file]")
            outcome.result.assertError(ExecutionPhase.COMPILATION)
            val message = outcome.message.orEmpty()
            assertTrue("\"dependencies\"[0] must be a string (line 1)" in message, message)
            assertEquals("2", value("1 + 1").valueText)
        } finally {
            Files.delete(file)
        }
    }
}
