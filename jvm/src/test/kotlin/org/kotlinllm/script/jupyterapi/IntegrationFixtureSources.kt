package org.kotlinllm.script.jupyterapi

/**
 * The integration of `com.example:fx:1.0` ([IntegrationFixtures.FX]), each Builder member doing something a test can
 * see: `Fx(3)` renders as `<b>fx 3</b>`; `FxHosted(3)` (with the host) as `<i>fx hosted 3 in cell N</i>`, N the current
 * cell's id; `FxLate(3)`, by the renderer added in `onLoaded`, as `<b>fx late 3</b>`. Loading declares `fxLoaded`
 * (true) and `fxOptions` (the options map as text), runs `val fxAnswer = 42` and displays `fx loaded` as HTML. A
 * variable `x` of type `FxData` is replaced after its cell by `xView`, an `FxView` of as many rows. The callbacks
 * record into `FxIntegration.events` (`com.example.fx.*` is imported): `loaded`, `before`, `after`,
 * `annotated [A, B]` (classes marked `@FxMarker`), `shutdown`.
 */
internal const val FX_SOURCE: String = """
package com.example.fx

import org.jetbrains.kotlinx.jupyter.api.HTML
import org.jetbrains.kotlinx.jupyter.api.Notebook
import org.jetbrains.kotlinx.jupyter.api.createRenderer
import org.jetbrains.kotlinx.jupyter.api.declare
import org.jetbrains.kotlinx.jupyter.api.libraries.JupyterIntegration
import org.jetbrains.kotlinx.jupyter.api.libraries.resources

data class Fx(val v: Int)

data class FxHosted(val v: Int)

data class FxLate(val v: Int)

data class FxData(val rows: Int)

data class FxView(val rows: Int)

annotation class FxMarker

class FxIntegration(private val notebook: Notebook, private val options: Map<String, String?>) : JupyterIntegration() {
    override fun Builder.onLoaded() {
        import("com.example.fx.*")
        render<Fx> { HTML("<b>fx " + it.v + "</b>") }
        renderWithHost<FxHosted> { _, value -> HTML("<i>fx hosted " + value.v + " in cell " + id + "</i>") }
        onLoaded {
            declare("fxLoaded" to true, "fxOptions" to options.toString())
            execute("val fxAnswer = 42")
            display(HTML("fx loaded"), null)
            addRenderer(createRenderer<FxLate> { HTML("<b>fx late " + it.v + "</b>") })
            events += "loaded"
        }
        updateVariable<FxData> { value, property ->
            execute("val " + property.name + "View = com.example.fx.FxView(" + value.rows + ")")
            property.name + "View"
        }
        onClassAnnotation<FxMarker> { classes -> events += "annotated " + classes.map { it.simpleName }.sortedBy { it } }
        beforeCellExecution { events += "before" }
        afterCellExecution { _, _ -> events += "after" }
        onShutdown { events += "shutdown" }
        resources {
            js("fx") { classPath("fx.js") }
            js("cdn") { url("${IntegrationFixtures.FX_CDN_URL}") }
        }
    }

    companion object {
        val events: MutableList<String> = java.util.Collections.synchronizedList(ArrayList())
    }
}
"""

/** `com.example:fxbroken:1.0`: its `onLoaded` calls `KotlinKernelHost.missingForTest()`, which [HOST_STUB_SOURCE] has. */
internal const val FX_BROKEN_SOURCE: String = """
package com.example.fxbroken

import org.jetbrains.kotlinx.jupyter.api.libraries.JupyterIntegration

data class FxBroken(val v: Int)

class FxBrokenIntegration : JupyterIntegration() {
    override fun Builder.onLoaded() {
        import("com.example.fxbroken.*")
        onLoaded { missingForTest() }
    }
}
"""

/**
 * A stand-in of the API's `KotlinKernelHost` with a member the real one lacks: fxbroken compiles against it (a source
 * shadows the classpath's class of that name) and its jar leaves it out, as a library built on a newer API would.
 */
internal const val HOST_STUB_SOURCE: String = """
package org.jetbrains.kotlinx.jupyter.api

interface KotlinKernelHost {
    fun missingForTest()
}
"""

/** `com.example:fxthrows:1.0`: its `onLoaded` callback throws. */
internal const val FX_THROWS_SOURCE: String = """
package com.example.fxthrows

import org.jetbrains.kotlinx.jupyter.api.libraries.JupyterIntegration

data class FxThrows(val v: Int)

class FxThrowsIntegration : JupyterIntegration() {
    override fun Builder.onLoaded() {
        import("com.example.fxthrows.*")
        onLoaded { throw IllegalStateException("${IntegrationFixtures.FX_THROWS_MESSAGE}") }
    }
}
"""
