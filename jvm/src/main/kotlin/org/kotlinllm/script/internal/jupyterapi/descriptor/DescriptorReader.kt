package org.kotlinllm.script.internal.jupyterapi.descriptor

import org.jetbrains.kotlinx.jupyter.api.KotlinKernelVersion
import org.jetbrains.kotlinx.jupyter.api.libraries.KernelRepository
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryResource
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourceFallbacksBundle
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourceLocation
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourcePathType
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourceType
import org.jetbrains.kotlinx.jupyter.util.PatternNameAcceptanceRule

/**
 * The fields of a descriptor's JSON object ([root]), each checked for the shape JetBrains' kernel reads it in, with
 * `$name` replaced by [substitute] in those that kernel substitutes; a field of another shape is a
 * [DescriptorException] naming it and its line. Fields it does not know are not read, as that kernel ignores them.
 */
internal class DescriptorReader(
    private val root: Map<*, *>,
    private val lines: JsonLines,
    private val source: String,
    private val substitute: (String) -> String = { it },
) {
    fun fail(path: List<Any>, detail: String): Nothing = throw DescriptorException(source, "${name(path)} $detail", lines.of(path))

    fun string(key: String): String? = when (val value = root[key]) {
        null, is String -> value as String?
        else -> fail(listOf(key), "must be a string")
    }

    /** A list of strings; absent, empty. */
    fun strings(key: String): List<String> = list(key, "must be a list of strings").mapIndexed { index, element ->
        (element as? String)?.let(substitute) ?: fail(listOf(key, index), "must be a string")
    }

    /** The declared properties, in order, with their defaults; those JetBrains' kernel leaves out (Renovate's) too. */
    fun properties(): List<Pair<String, String>> {
        val path = listOf<Any>(PROPERTIES)
        val declared = when (val value = root[PROPERTIES]) {
            null -> if (PROPERTIES in root) fail(path, PROPERTIES_SHAPE) else emptyList()
            is Map<*, *> -> value.map { (name, default) -> name as String to (default as? String ?: fail(path + name, "must be a string")) }
            is List<*> -> value.mapIndexedNotNull { index, element -> property(path + index, element) }
            else -> fail(path, PROPERTIES_SHAPE)
        }
        return declared.filterNot { it.first.endsWith("-renovate-hint") }
    }

    private fun property(path: List<Any>, element: Any?): Pair<String, String>? {
        val entry = element as? Map<*, *> ?: fail(path, "must be a {\"name\", \"value\"} object")
        val name = entry["name"] as? String ?: fail(path, "needs a \"name\" string")
        val value = entry["value"] as? String ?: fail(path, "needs a \"value\" string")
        val ignored = entry["ignored"] ?: false
        if (ignored !is Boolean) fail(path + "ignored", "must be true or false")
        return if (ignored) null else name to value
    }

    fun repositories(): List<KernelRepository> = list(
        REPOSITORIES,
        "must be a list of URLs or {\"path\", \"username\", \"password\"} objects",
    )
        .mapIndexed { index, element ->
            val path = listOf(REPOSITORIES, index)
            when (element) {
                is String -> KernelRepository(substitute(element))
                is Map<*, *> -> {
                    fun field(key: String): String? = element[key]?.let { it as? String ?: fail(path + key, "must be a string") }
                    val url = field("path") ?: field("url") ?: fail(path, "needs a \"path\"")
                    KernelRepository(substitute(url), field("username")?.let(substitute), field("password")?.let(substitute))
                }
                else -> fail(path, "must be a URL or a {\"path\", \"username\", \"password\"} object")
            }
        }

    /** Type names to the code that renders their values (`$it`), in the order written. */
    fun renderers(): List<Pair<String, String>> = when (val value = root[RENDERERS]) {
        null -> if (RENDERERS in root) fail(listOf(RENDERERS), RENDERERS_SHAPE) else emptyList()
        is Map<*, *> -> value.map { (type, code) ->
            type as String to
                substitute(code as? String ?: fail(listOf(RENDERERS, type), "must be code (a string)"))
        }
        else -> fail(listOf(RENDERERS), RENDERERS_SHAPE)
    }

    fun resources(): List<LibraryResource> = list(RESOURCES, "must be a list of {\"name\", \"type\", \"bundles\"} objects")
        .mapIndexed { index, element ->
            val path = listOf(RESOURCES, index)
            val resource = element as? Map<*, *> ?: fail(path, "must be a {\"name\", \"type\", \"bundles\"} object")
            val name = resource["name"] as? String ?: fail(path, "needs a \"name\" string")
            val type = enumValue<ResourceType>(path + "type", resource["type"])
            val bundles = resource["bundles"] as? List<*> ?: fail(path, "needs a list of \"bundles\"")
            LibraryResource(
                bundles.mapIndexed { bundle, locations ->
                    bundle(path + "bundles" + bundle, locations)
                },
                type,
                substitute(name),
            )
        }

    /** A bundle: one location, or a list of locations tried in turn. */
    private fun bundle(path: List<Any>, value: Any?): ResourceFallbacksBundle {
        fun location(at: List<Any>, location: Any?): ResourceLocation {
            val fields = location as? Map<*, *> ?: fail(at, "must be a {\"path\", \"type\"} object")
            val where = fields["path"] as? String ?: fail(at, "needs a \"path\" string")
            return ResourceLocation(substitute(where), enumValue<ResourcePathType>(at + "type", fields["type"]))
        }
        return when (value) {
            is List<*> -> ResourceFallbacksBundle(value.mapIndexed { index, element -> location(path + index, element) })
            else -> ResourceFallbacksBundle(listOf(location(path, value)))
        }
    }

    private inline fun <reified T : Enum<T>> enumValue(path: List<Any>, value: Any?): T =
        enumValues<T>().firstOrNull { it.name == value }
            ?: fail(path, "must be one of ${enumValues<T>().joinToString { "\"${it.name}\"" }}")

    fun minKernelVersion(): KotlinKernelVersion? = string(MIN_KERNEL_VERSION)?.let {
        KotlinKernelVersion.from(it) ?: fail(listOf(MIN_KERNEL_VERSION), "must be a kernel version such as \"0.11.0.1\", not \"$it\"")
    }

    /** JetBrains' kernel reads descriptors of format 3.0 to 3.2 (or of none given). */
    fun checkFormatVersion() {
        val version = string(FORMAT_VERSION) ?: return
        val parts = version.split('.').map { it.toIntOrNull() }
        val major = parts.first()
        val minor = parts.getOrNull(1)
        if (parts.size != 2 || major == null || minor == null) {
            fail(listOf(FORMAT_VERSION), "must be a format version such as \"3.2\", not \"$version\"")
        }
        if (major != 3 || minor > 2) fail(listOf(FORMAT_VERSION), "is $version: this kernel reads formats 3.0 to 3.2")
    }

    fun integrationTypeNameRules(): List<PatternNameAcceptanceRule> = strings(TYPE_NAME_RULES).mapIndexed { index, rule ->
        val parts = rule.split(':').map { it.trim() }
        val sign = if (parts.size == 2) parts[0] else "+"
        if (parts.size > 2 ||
            sign !in setOf("+", "-")
        ) fail(listOf(TYPE_NAME_RULES, index), "must be \"+:pattern\" or \"-:pattern\", not \"$rule\"")
        PatternNameAcceptanceRule(sign == "+", parts.last())
    }

    private fun list(key: String, shape: String): List<*> = when (val value = root[key]) {
        null -> if (key in root) fail(listOf(key), shape) else emptyList<Any>()
        is List<*> -> value
        else -> fail(listOf(key), shape)
    }

    /** `"resources"[0].bundles[1]`: the field quoted as written, then its indices and keys. */
    private fun name(path: List<Any>): String = path.withIndex().joinToString("") { (index, part) ->
        when {
            index == 0 -> "\"$part\""
            part is Int -> "[$part]"
            else -> ".$part"
        }
    }

    companion object {
        const val PROPERTIES: String = "properties"
        const val REPOSITORIES: String = "repositories"
        const val RENDERERS: String = "renderers"
        const val RESOURCES: String = "resources"
        const val MIN_KERNEL_VERSION: String = "minKernelVersion"
        const val FORMAT_VERSION: String = "formatVersion"
        const val TYPE_NAME_RULES: String = "integrationTypeNameRules"
        private const val PROPERTIES_SHAPE = "must be an object of strings or a list of {\"name\", \"value\"} objects"
        private const val RENDERERS_SHAPE = "must be an object from type names to code"
    }
}
