package org.kotlinllm.script.internal.compiler

import org.jetbrains.kotlin.config.KotlinCompilerVersion
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import kotlin.test.assertEquals

/** Which compiler plugins a session compiles with: the bundled ones of this compiler's version, or those listed. */
class CompilerPluginsTest {

    @Test
    fun `the build bundles kotlinx serialization's plugin for exactly this compiler, and sessions load it`() {
        val jar = "kotlin-serialization-compiler-plugin-embeddable-${KotlinCompilerVersion.VERSION}.jar"
        assertEquals(listOf(jar), CompilerPlugins.jars.map { it.name })
        assertEquals(listOf("-Xplugin=${CompilerPlugins.jars.single().absolutePath}"), CompilerPlugins.options())
    }

    @Test
    fun `a plugin built for another compiler is left out`(@TempDir directory: File) {
        val current = File(directory, "a-plugin-${KotlinCompilerVersion.VERSION}.jar").apply { writeText("") }
        File(directory, "a-plugin-2.0.0.jar").writeText("")
        File(directory, "notes.txt").writeText("")
        assertEquals(listOf(current), CompilerPlugins.select(null, directory))
        assertEquals(emptyList(), CompilerPlugins.select(null, null))
    }

    @Test
    fun `the property lists the plugins, and empty turns them off`(@TempDir directory: File) {
        File(directory, "a-plugin-${KotlinCompilerVersion.VERSION}.jar").writeText("")
        assertEquals(emptyList(), CompilerPlugins.select("", directory))
        assertEquals(listOf(File("x.jar"), File("y.jar")), CompilerPlugins.select("x.jar${File.pathSeparator}y.jar", directory))
    }
}
