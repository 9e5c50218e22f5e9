package org.kotlinllm.script.dependencies

import java.io.File
import java.io.IOException
import java.net.URL
import java.util.jar.JarFile

/**
 * Tells whether a resolved jar duplicates a library of the host (kotlin-stdlib, kotlinx-coroutines, …): the host
 * class loader already sees the jar's first classes. Host classes win anyway, so such a jar is left out.
 */
internal class HostLibraries(private val host: ClassLoader) {

    /** Where the host has the classes of [jar] (e.g. `kotlin-stdlib-2.4.21.jar`), or null when it does not. */
    fun providerOf(jar: File): String? {
        val sample = try {
            JarFile(jar).use { file ->
                file.entries().asSequence().map { it.name }.filter(::isPlainClass).take(SAMPLE_SIZE).toList()
            }
        } catch (_: IOException) {
            return null
        }
        if (sample.isEmpty()) return null
        val found = sample.map { host.getResource(it) ?: return null }
        return describe(found.first(), sample.first())
    }

    /** The version in a host jar's file name ([provider], as [providerOf] gives it) of [artifactId], when it has one. */
    fun versionIn(provider: String, artifactId: String): String? =
        provider.takeIf { it.startsWith("$artifactId-") && it.endsWith(".jar") }
            ?.removePrefix("$artifactId-")?.removeSuffix(".jar")?.takeIf { it.isNotEmpty() && it[0].isDigit() }

    private fun isPlainClass(name: String): Boolean =
        name.endsWith(".class") && !name.startsWith("META-INF/") &&
            !name.endsWith("module-info.class") && !name.endsWith("package-info.class")

    /** The host jar's file name, or the directory the class was found in. */
    private fun describe(url: URL, entry: String): String {
        val text = url.toString()
        val location = if (text.startsWith("jar:")) text.removePrefix("jar:").substringBefore("!/") else text.removeSuffix(entry)
        return location.trimEnd('/').substringAfterLast('/')
    }

    private companion object {
        const val SAMPLE_SIZE = 5
    }
}
