package org.kotlinllm.script.jupyterapi

import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassVisitor
import org.jetbrains.org.objectweb.asm.ClassWriter
import org.jetbrains.org.objectweb.asm.MethodVisitor
import org.jetbrains.org.objectweb.asm.Opcodes
import org.kotlinllm.script.RenderedLibraries
import org.kotlinllm.script.internal.jupyterapi.linkage.IntegrationLinkage
import org.kotlinllm.script.testLibraries
import java.io.ByteArrayInputStream
import java.io.File
import java.io.InputStream
import kotlin.test.Test
import kotlin.test.assertEquals

/**
 * The pre-flight link check against the API jars the engine ships: the real integrations of DataFrame 0.15.0 (in
 * dataframe-core) and krangl 0.18 use nothing the API lacks; what a library built on another API needs and this one
 * lacks is named, one short line each.
 */
class IntegrationLinkageTest {
    private val loader: ClassLoader = javaClass.classLoader

    /** The jar a class was loaded from: the engine's classpath, as bundled. */
    private fun jarOf(className: String): File = File(Class.forName(className).protectionDomain.codeSource.location.toURI())

    private fun testLibrary(path: String): File = testLibraries(path).resolve(path).toFile()

    private val dataFrameCore = testLibrary(RenderedLibraries.JARS.single { "dataframe-core" in it })

    @Test
    fun `the API the check reads is the shipped 0_19_0-944, in both its jars`() {
        val jars = listOf(jarOf("org.jetbrains.kotlinx.jupyter.api.MimeTypes"), jarOf("org.jetbrains.kotlinx.jupyter.api.libraries.Comm"))
        assertEquals(listOf("kotlin-jupyter-api-0.19.0-944.jar", "kotlin-jupyter-protocol-api-0.19.0-944.jar"), jars.map { it.name })
    }

    @Test
    fun `every API member DataFrame's integration uses resolves`() {
        assertEquals(emptyList(), IntegrationLinkage.missing(listOf(dataFrameCore), loader))
    }

    @Test
    fun `every API member krangl's integration uses resolves`() {
        val krangl = testLibrary("com/github/holgerbrandl/krangl/0.18/krangl-0.18.jar")
        assertEquals(emptyList(), IntegrationLinkage.missing(listOf(krangl), loader))
    }

    @Test
    fun `a class, a member and a return type the API lacks are each named as a Kotlin reader would`() {
        val planted = PlantedApi(
            loader,
            hidden = "org/jetbrains/kotlinx/jupyter/api/HtmlData.class",
            removed = "org/jetbrains/kotlinx/jupyter/api/libraries/JupyterIntegration\$Builder.class" to
                "onLoaded (Lkotlin/jvm/functions/Function1;)V",
            retyped = "org/jetbrains/kotlinx/jupyter/api/Notebook.class" to
                "getCurrentCell ()Lorg/jetbrains/kotlinx/jupyter/api/CodeCell;",
        )
        val expected = listOf("HtmlData", "JupyterIntegration.Builder.onLoaded(Function1)", "Notebook.getCurrentCell(): CodeCell")
        assertEquals(expected, IntegrationLinkage.missing(listOf(dataFrameCore), planted))
    }

    /**
     * The engine's loader with the API changed as another version of it could be: [hidden] gone, the method [removed]
     * (class file to `name descriptor`) gone, the method [retyped] returning Object instead.
     */
    private class PlantedApi(
        parent: ClassLoader,
        private val hidden: String,
        private val removed: Pair<String, String>,
        private val retyped: Pair<String, String>,
    ) : ClassLoader(parent) {
        override fun getResourceAsStream(name: String): InputStream? {
            val original = super.getResourceAsStream(name) ?: return null
            val (target, member) = when (name) {
                hidden -> return null.also { original.close() }
                removed.first -> removed
                retyped.first -> retyped
                else -> return original
            }
            val writer = ClassWriter(0)
            val edit = object : ClassVisitor(Opcodes.ASM9, writer) {
                override fun visitMethod(access: Int, n: String, d: String, sig: String?, ex: Array<String>?): MethodVisitor? = when {
                    "$n $d" != member -> super.visitMethod(access, n, d, sig, ex)
                    target == removed.first -> null
                    else -> super.visitMethod(access, n, d.substringBefore(')') + ")Ljava/lang/Object;", null, ex)
                }
            }
            ClassReader(original.use { it.readBytes() }).accept(edit, 0)
            return ByteArrayInputStream(writer.toByteArray())
        }
    }
}
