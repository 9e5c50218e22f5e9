package org.kotlinllm.script.dependencies

import java.io.File
import java.io.IOException
import java.util.zip.ZipFile

/**
 * Jars that ship a Jupyter integration of JetBrains' Kotlin kernel (`libraries.json` naming its producers: renderers,
 * default imports, code run before cells), which this kernel does not run: said once per session, so that what the
 * library's documentation promises in notebooks is not silently missing. For the libraries the kernel knows, the
 * catalogue of libraries (`internal.libraries.Libraries`) names the integration and what stands in for it: DataFrame's
 * tables and column accessors.
 */
internal class JupyterIntegrations {
    private val reported = mutableSetOf<String>()

    /** Whether [jar] declares an integration with producers, and this session has not been told of its library yet. */
    fun unreported(key: String, jar: File): Boolean = key !in reported && declaresIntegration(jar)

    fun reported(keys: Collection<String>) {
        reported += keys
    }

    private fun declaresIntegration(jar: File): Boolean =
        try {
            ZipFile(jar).use { zip ->
                val entry = zip.getEntry(DESCRIPTOR) ?: return false
                val text = zip.getInputStream(entry).use { it.readBytes().decodeToString() }
                // an empty list of producers and definitions (as dataframe-jdbc has) integrates nothing
                EMPTY_LIST.findAll(text).count() < 2
            }
        } catch (_: IOException) {
            false
        }

    internal companion object {
        const val DESCRIPTOR: String = "META-INF/kotlin-jupyter-libraries/libraries.json"
        private val EMPTY_LIST = Regex(""""(definitions|producers)"\s*:\s*\[\s*]""")
    }
}
