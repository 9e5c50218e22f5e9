package org.kotlinllm.script.internal.compiler

import io.github.oshai.kotlinlogging.KotlinLogging
import org.jetbrains.kotlin.config.KotlinCompilerVersion
import java.io.File

private val logger = KotlinLogging.logger {}

/**
 * The compiler plugins every session compiles with: the jars of the `compiler-plugins/` directory beside the
 * engine's jar (or its `classes/` directory), where the build puts kotlinx.serialization's. The K2 REPL fixes a
 * session's FIR extensions when it creates the session's compiler state, so a plugin is on from the first snippet
 * or never; it cannot come with a snippet's `@file:DependsOn`.
 *
 * A plugin is built against one compiler: only jars named for the running compiler's version are taken, so a stale
 * jar of an older build is never loaded. The system property [PROPERTY] replaces the directory: the plugin jars
 * separated by the path separator, none when empty.
 */
internal object CompilerPlugins {
    const val PROPERTY: String = "kotlinllm.compiler.plugins"
    const val DIRECTORY_NAME: String = "compiler-plugins"

    /** The plugin jars, read once. */
    val jars: List<File> by lazy { select(System.getProperty(PROPERTY), bundled()) }

    /** The compiler's options that load [jars]. */
    fun options(): List<String> = jars.map { "-Xplugin=${it.absolutePath}" }

    /** The jars [listed] names (as in [PROPERTY]), or without it those of [directory] built for this compiler. */
    fun select(listed: String?, directory: File?): List<File> {
        if (listed != null) return listed.split(File.pathSeparatorChar).filter { it.isNotBlank() }.map(::File)
        val suffix = "-${KotlinCompilerVersion.VERSION}.jar"
        val files = directory?.listFiles().orEmpty().filter { it.name.endsWith(".jar") }.sortedBy { it.name }
        val (matching, other) = files.partition { it.name.endsWith(suffix) }
        if (other.isNotEmpty()) {
            logger.warn {
                "compiler plugins not built for compiler ${KotlinCompilerVersion.VERSION} are left out: ${other.joinToString { it.name }}"
            }
        }
        logger.debug { "compiler plugins: ${matching.joinToString { it.name }}" }
        return matching
    }

    private fun bundled(): File? = runCatching {
        val location = CompilerPlugins::class.java.protectionDomain?.codeSource?.location ?: return@runCatching null
        File(location.toURI()).parentFile?.let { File(it, DIRECTORY_NAME) }?.takeIf { it.isDirectory }
    }.getOrNull()
}
