package org.kotlinllm.script.jupyterapi

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * A library's own notebook integration (`libraries.json` naming a `JupyterIntegration`), loaded because a cell
 * depends on its jar: the fixtures of [IntegrationFixtures], built by the tests against the real API jars.
 */
@Timeout(600)
class IntegrationLoadingTest : OneSessionTest() {

    private val repository = IntegrationFixtures.repository().toURI().toString()

    @Test
    fun `a dependency's integration loads once, its renderers, declarations, converters and callbacks work`() {
        val load = value(
            """
            @file:Repository("$repository")
            @file:DependsOn("${IntegrationFixtures.FX}")
            "loaded"
            """,
        )
        val shown = displays(load.snippetNumber).map { it.data["text/html"] }
        assertTrue("fx loaded" in shown, shown.toString())
        assertTrue(shown.any { it == "<script type=\"text/javascript\">\n${IntegrationFixtures.FX_JS}\n</script>" }, shown.toString())
        val err = output(load.snippetNumber, "stderr")
        assertTrue("resource 'cdn' is only at ${IntegrationFixtures.FX_CDN_URL}: skipped (output stays offline)" in err, err)
        assertEquals("true 42 {}", value("\"${'$'}fxLoaded ${'$'}fxAnswer ${'$'}fxOptions\"").valueText)
        assertEquals("<b>fx 3</b>", value("Fx(3)").valueData["text/html"])
        assertEquals("<b>fx late 4</b>", value("FxLate(4)").valueData["text/html"])
        val hosted = value("FxHosted(5)")
        assertEquals("<i>fx hosted 5 in cell ${hosted.snippetNumber}</i>", hosted.valueData["text/html"])
        value("val x = FxData(2)")
        assertEquals("FxView(rows=2)", value("x").valueText)
        value("@FxMarker class B\n@FxMarker class A")
        val recorded = value("FxIntegration.events.filter { it != \"before\" && it != \"after\" }.toString()").valueText
        assertEquals("[loaded, annotated [A, B]]", recorded)
    }

    @Test
    fun `an integration built against a member the API lacks loads without it, said in one line`() {
        val load = value(
            """
            @file:Repository("$repository")
            @file:DependsOn("${IntegrationFixtures.FX_BROKEN}")
            com.example.fxbroken.FxBroken(1).v
            """,
        )
        assertEquals("1", load.valueText)
        assertEquals(
            "[kotlin-llm] fxbroken 1.0's notebook integration needs ${IntegrationFixtures.FX_BROKEN_MISSING}, which this " +
                "kernel's JetBrains API 0.19.0.944 lacks: loaded without its integration\n",
            output(load.snippetNumber, "stderr"),
        )
    }

    @Test
    fun `an integration whose onLoaded throws is reported naming it, and the cell and session go on`() {
        val load = value(
            """
            @file:Repository("$repository")
            @file:DependsOn("${IntegrationFixtures.FX_THROWS}")
            "still here"
            """,
        )
        assertEquals("still here", load.valueText)
        val err = output(load.snippetNumber, "stderr")
        assertTrue(
            err.startsWith(
                "[kotlin-llm] error: fxthrows 1.0 (FxThrowsIntegration): its init code (onLoaded) threw IllegalStateException: " +
                    IntegrationFixtures.FX_THROWS_MESSAGE,
            ),
            err,
        )
        assertEquals("2", value("1 + 1").valueText)
    }
}
