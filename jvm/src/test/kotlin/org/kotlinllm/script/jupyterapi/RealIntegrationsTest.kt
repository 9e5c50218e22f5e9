package org.kotlinllm.script.jupyterapi

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.RenderedLibraries
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.host.LibrarySession
import org.kotlinllm.script.host.Ran
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * The real notebook integrations of libraries the setup fetched (tests/libraries.py): krangl 0.18's (its imports and
 * its HTML tables) and DataFrame 0.15's (`dataFrameConfig`, its imports), loaded by a plain `@file:DependsOn`.
 */
@Timeout(600)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RealIntegrationsTest {

    private val krangl = LibrarySession("krangl-integration", KRANGL_JAR)
    private val dataframe = LibrarySession("dataframe-integration", *RenderedLibraries.JARS.toTypedArray())

    @AfterAll
    fun close() {
        krangl.close()
        dataframe.close()
    }

    private fun LibrarySession.value(code: String): Ran = run(code).also { it.outcome.result.assertValue() }

    @Test
    fun `krangl's integration imports krangl and renders its data frames as HTML tables`() {
        val load = krangl.value("@file:DependsOn(\"$KRANGL\")\n\"loaded\"")
        assertEquals("", load.stderr)
        val table = krangl.value("dataFrameOf(\"name\", \"age\")(\"Ada\", 36, \"Alan\", 41)")
        val html = table.outcome.valueData["text/html"].toString()
        assertTrue("<table" in html && "Ada" in html && "Alan" in html, html)
        assertTrue("http" !in html, "no script or style from the network: $html")
    }

    @Test
    fun `DataFrame's integration declares dataFrameConfig and its table stays the kernel's self-contained one`() {
        dataframe.value("@file:DependsOn(\"${RenderedLibraries.DATAFRAME_CORE}\")\n1")
        assertEquals(
            "org.jetbrains.kotlinx.dataframe.jupyter.JupyterConfiguration",
            dataframe.value("dataFrameConfig::class.qualifiedName").outcome.valueText,
        )
        val table = dataframe.value("dataFrameOf(\"a\")(1, 2)")
        val html = table.outcome.valueData["text/html"].toString()
        assertTrue("<table" in html, html)
        assertTrue("cdn.jsdelivr" !in html, html)
        assertEquals("", table.stderr)
    }

    @Test
    fun `a %use line with DataFrame's options loads it and its integration without a word`() {
        val options = LibrarySession("dataframe-options", *RenderedLibraries.JARS.toTypedArray())
        try {
            val load = options.value("%use dataframe(v=0.15.0, enableExperimentalCsv=true)\n1")
            assertEquals("", load.stderr)
            assertEquals("2", options.value("dataFrameOf(\"a\")(1, 2).rowsCount()").outcome.valueText)
        } finally {
            options.close()
        }
    }

    private companion object {
        const val KRANGL = "com.github.holgerbrandl:krangl:0.18"
        const val KRANGL_JAR = "com/github/holgerbrandl/krangl/0.18/krangl-0.18.jar"
    }
}
