package org.kotlinllm.script.dependencies.gradle

import org.kotlinllm.script.runtime.Json
import java.io.File
import java.io.IOException
import java.util.zip.ZipException
import java.util.zip.ZipFile

/**
 * What Gradle module metadata (the `.module` file beside a POM) says about a Kotlin Multiplatform library: where its
 * JVM variant is published. A multiplatform root's own jar holds only common metadata; Gradle follows the
 * `available-at` of the variant whose attributes ask for the JVM at run time, and so does the engine.
 */
internal object GradleModuleMetadata {
    private const val PLATFORM = "org.jetbrains.kotlin.platform.type"
    private const val USAGE = "org.gradle.usage"

    /** The entry that only a Kotlin Multiplatform metadata jar carries (the root's jar, not a platform's). */
    private const val PROJECT_STRUCTURE = "META-INF/kotlin-project-structure-metadata.json"

    /**
     * `group:module:version` of the JVM runtime variant that [text] (a `.module` file) points to with
     * `available-at`; null when it has none elsewhere (no JVM variant, or the module is itself the JVM one) or
     * the text is not module metadata.
     */
    fun jvmRuntimeModule(text: String): String? {
        val root = try {
            Json.parse(text)
        } catch (_: Json.SyntaxError) {
            return null
        } as? Map<*, *> ?: return null
        val variants = (root["variants"] as? List<*>).orEmpty().filterIsInstance<Map<*, *>>()
        val jvm = variants.filter { variant ->
            val attributes = variant["attributes"] as? Map<*, *> ?: return@filter false
            attributes[PLATFORM] == "jvm" && attributes[USAGE] == "java-runtime"
        }
        val target = jvm.firstNotNullOfOrNull { it["available-at"] as? Map<*, *> } ?: return null
        val group = target["group"] as? String ?: return null
        val module = target["module"] as? String ?: return null
        val version = target["version"] as? String ?: return null
        return "$group:$module:$version"
    }

    /** Whether [jar] is a multiplatform root's metadata jar, which holds no JVM classes. */
    fun isMetadataJar(jar: File): Boolean =
        try {
            ZipFile(jar).use { it.getEntry(PROJECT_STRUCTURE) != null }
        } catch (_: ZipException) {
            false
        } catch (_: IOException) {
            false
        }
}
