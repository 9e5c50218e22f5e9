package org.kotlinllm.script.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.Notebook
import org.jetbrains.kotlinx.jupyter.api.libraries.JupyterIntegration
import org.kotlinllm.script.internal.jupyterapi.linkage.IntegrationLinkage
import org.kotlinllm.script.jupyterapi.IntegrationFixtures.FX
import org.kotlinllm.script.jupyterapi.IntegrationFixtures.FX_BROKEN
import org.kotlinllm.script.jupyterapi.IntegrationFixtures.FX_THROWS
import java.io.File
import java.net.URLClassLoader
import java.security.MessageDigest
import java.util.zip.ZipFile
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** The integrations the tests build ([IntegrationFixtures]) are what they say: jars as libraries ship them. */
class IntegrationFixturesTest {
    private val repository = IntegrationFixtures.repository()
    private val producers = mapOf(
        FX to IntegrationFixtures.FX_PRODUCER,
        FX_BROKEN to IntegrationFixtures.FX_BROKEN_PRODUCER,
        FX_THROWS to IntegrationFixtures.FX_THROWS_PRODUCER,
    )

    private fun entries(coordinates: String): Map<String, ByteArray> = ZipFile(
        IntegrationFixtures.jar(coordinates, repository),
    ).use { zip ->
        zip.entries().asSequence().associate { it.name to zip.getInputStream(it).readBytes() }
    }

    private fun sha1(file: File) = MessageDigest.getInstance("SHA-1").digest(file.readBytes()).joinToString("") { "%02x".format(it) }

    @Test
    fun `each fixture is a jar naming its producer in libraries_json, beside its POM, with no class of the API`() {
        for ((coordinates, producer) in producers) {
            val entries = entries(coordinates)
            val librariesJson = entries["META-INF/kotlin-jupyter-libraries/libraries.json"]?.decodeToString()
            assertEquals("""{"definitions":[],"producers":[{"fqn":"$producer"}]}""", librariesJson, coordinates)
            assertTrue(producer.replace('.', '/') + ".class" in entries, entries.keys.toString())
            assertEquals(emptyList(), entries.keys.filter { it.startsWith("org/") }, coordinates)
            val jar = IntegrationFixtures.jar(coordinates, repository)
            val (_, artifact, version) = coordinates.split(':')
            val pom = jar.resolveSibling("$artifact-$version.pom").readText()
            assertTrue("<groupId>com.example</groupId><artifactId>$artifact</artifactId><version>$version</version>" in pom, pom)
            assertEquals(sha1(jar), jar.resolveSibling("${jar.name}.sha1").readText())
        }
    }

    @Test
    fun `fx carries fx_js and the classes its integration renders and converts`() {
        val entries = entries(FX)
        assertEquals(IntegrationFixtures.FX_JS, entries["fx.js"]?.decodeToString())
        val classes = listOf("Fx", "FxHosted", "FxLate", "FxData", "FxView", "FxMarker", "FxIntegration", "FxIntegration\$Companion")
        assertEquals(emptyList(), classes.map { "com/example/fx/$it.class" }.filter { it !in entries })
    }

    @Test
    fun `the producers are JupyterIntegrations with the constructors the kernel calls`() {
        val jars = producers.keys.map { IntegrationFixtures.jar(it, repository).toURI().toURL() }
        URLClassLoader(jars.toTypedArray(), javaClass.classLoader).use { loader ->
            val classes = producers.mapValues { Class.forName(it.value, false, loader) }
            assertTrue(classes.values.all { JupyterIntegration::class.java.isAssignableFrom(it) }, classes.toString())
            classes.getValue(FX).getConstructor(Notebook::class.java, Map::class.java)
            classes.getValue(FX_BROKEN).getConstructor()
            classes.getValue(FX_THROWS).getConstructor()
        }
    }

    @Test
    fun `the link check passes fx and fxthrows and names the one member fxbroken needs`() {
        val check = { coordinates: String ->
            IntegrationLinkage.missing(listOf(IntegrationFixtures.jar(coordinates, repository)), javaClass.classLoader)
        }
        assertEquals(emptyList(), check(FX))
        assertEquals(emptyList(), check(FX_THROWS))
        assertEquals(listOf(IntegrationFixtures.FX_BROKEN_MISSING), check(FX_BROKEN))
    }
}
