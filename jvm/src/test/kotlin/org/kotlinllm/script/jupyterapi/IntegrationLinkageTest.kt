package org.kotlinllm.script.jupyterapi

import org.kotlinllm.script.RenderedLibraries
import org.kotlinllm.script.testLibraries
import java.io.File
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * DataFrame 0.15.0's Jupyter integration (in dataframe-core) links against the API jars the engine ships: every
 * class, method and field of the API it uses is there. A library whose integration needs a member the shipped API
 * lacks would fail inside the kernel with a NoSuchMethodError.
 */
class IntegrationLinkageTest {

    /** The jar a class of the API was loaded from: the one on the engine's classpath, as bundled. */
    private fun jarOf(className: String): File = File(Class.forName(className).protectionDomain.codeSource.location.toURI())

    private val apiJars = listOf(
        jarOf("org.jetbrains.kotlinx.jupyter.api.MimeTypes"),
        jarOf("org.jetbrains.kotlinx.jupyter.api.libraries.Comm"),
    )
    private val api: Map<String, ClassShape> = apiJars.flatMap { classFiles(it, API_PACKAGE).values }.map(::shapeOf).associateBy { it.name }

    private val integration: Map<String, ByteArray> = run {
        val jar = RenderedLibraries.JARS.single { "dataframe-core" in it }
        classFiles(testLibraries(jar).resolve(jar).toFile(), "org/jetbrains/kotlinx/dataframe/jupyter/")
    }

    private fun linkage(api: Map<String, ClassShape>) = ApiLinkage(api, javaClass.classLoader)

    @Test
    fun `the shipped API jars are JetBrains' 0_19_0-944, in both its jars`() {
        assertEquals(listOf("kotlin-jupyter-api-0.19.0-944.jar", "kotlin-jupyter-protocol-api-0.19.0-944.jar"), apiJars.map { it.name })
        assertTrue(api.size > 250, "${api.size} API classes")
    }

    @Test
    fun `every API member DataFrame's integration uses resolves`() {
        assertTrue("org/jetbrains/kotlinx/dataframe/jupyter/Integration" in integration, integration.keys.sorted().toString())
        assertTrue(integration.size > 100, "${integration.size} integration classes")
        assertEquals(emptySet(), linkage(api).unresolved(integration.values))
    }

    @Test
    fun `a member or a class the API lacks is named with the class that uses it`() {
        val builder = "org/jetbrains/kotlinx/jupyter/api/libraries/JupyterIntegration\$Builder"
        val onLoaded = api.getValue(builder).methods.single { it.startsWith("onLoaded ") }
        val planted = api + (builder to api.getValue(builder).let { it.copy(methods = it.methods - onLoaded) }) -
            "org/jetbrains/kotlinx/jupyter/api/HtmlData"
        val missing = linkage(planted).unresolved(integration.values)
        val member = "org.jetbrains.kotlinx.jupyter.api.libraries.JupyterIntegration\$Builder.$onLoaded"
        assertTrue(missing.any { it.startsWith("$member (used by org.jetbrains.kotlinx.dataframe.jupyter.") }, missing.toString())
        assertTrue(missing.any { it.startsWith("org.jetbrains.kotlinx.jupyter.api.HtmlData (used by ") }, missing.toString())
    }
}
