package org.kotlinllm.script.internal.jupyterapi.descriptor

import org.jetbrains.kotlinx.jupyter.api.ExactRendererTypeHandler
import org.jetbrains.kotlinx.jupyter.api.ResultHandlerCodeExecution
import org.jetbrains.kotlinx.jupyter.api.libraries.CodeExecutionCallback
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinition
import org.jetbrains.kotlinx.jupyter.api.libraries.libraryDefinition
import org.kotlinllm.script.runtime.Json

/**
 * Library descriptors in the JSON format of JetBrains' Kotlin kernel (its `kotlin-jupyter-libraries` and
 * `loadLibraryDescriptor`) as that kernel's API [LibraryDefinition]s: `description`, `link`, `properties`,
 * `dependencies`, `repositories`, `imports`, `init`, `initCell`, `shutdown`, `renderers`, `resources`,
 * `minKernelVersion`, `formatVersion`, `integrationTypeNameRules`; other fields are ignored, as that kernel ignores them.
 *
 * A property's value is its default, or the option given for it; `$name` in the fields that kernel substitutes is the
 * value of property (or option) `name`, the longest name matching. `${name}` is Kotlin's, left to the code, as there.
 * Code (`init`, `initCell`, `shutdown`) becomes the API's [CodeExecutionCallback]s (`host.execute(code)`), a renderer
 * an [ExactRendererTypeHandler] of the type name, whose code names the value `$it`.
 */
internal object LibraryDescriptors {

    /** [text] with named [options] (`loadLibraryDescriptor(text, options)`); [source] names it in errors. */
    fun parse(text: String, options: Map<String, String>, source: String): LibraryDefinition =
        parse(text, options.map { (name, value) -> DescriptorOption(name, value) }, source)

    /**
     * [text] with [options] as a `%use` line gives them: positional ones first, for the properties in the order
     * declared, then named ones, which may name no property (their `$name` is still replaced).
     */
    fun parse(text: String, options: List<DescriptorOption>, source: String): LibraryDefinition {
        val root = try {
            Json.parse(text)
        } catch (e: Json.SyntaxError) {
            throw DescriptorException(source, "not JSON: ${e.detail}", e.line, e.column)
        }
        val lines = JsonLines(text)
        if (root !is Map<*, *>) throw DescriptorException(source, "a descriptor must be a JSON object {…}", lines.of(emptyList()))
        val values = values(source, DescriptorReader(root, lines, source).properties(), options)
        return definition(DescriptorReader(root, lines, source, substitution(values)), values, text)
    }

    private fun definition(reader: DescriptorReader, values: Map<String, String>, text: String): LibraryDefinition {
        reader.checkFormatVersion()
        val description = reader.string("description")
        val link = reader.string("link")
        val dependencies = reader.strings("dependencies")
        val repositories = reader.repositories()
        val imports = reader.strings("imports")
        val init = reader.strings("init").map(::CodeExecutionCallback)
        val initCell = reader.strings("initCell").map(::CodeExecutionCallback)
        val shutdown = reader.strings("shutdown").map(::CodeExecutionCallback)
        val renderers = reader.renderers().map { (type, code) -> ExactRendererTypeHandler(type, ResultHandlerCodeExecution(code)) }
        val resources = reader.resources()
        val minKernelVersion = reader.minKernelVersion()
        val rules = reader.integrationTypeNameRules()
        return libraryDefinition {
            it.options = values
            it.description = description
            it.website = link
            it.dependencies = dependencies
            it.repositories = repositories
            it.imports = imports
            it.init = init
            it.initCell = initCell
            it.shutdown = shutdown
            it.renderers = renderers
            it.resources = resources
            it.minKernelVersion = minKernelVersion
            it.integrationTypeNameRules = rules
            it.originalDescriptorText = text
        }
    }

    /** The properties' values: the [options] given, in the order of the [declared] properties, then the defaults. */
    private fun values(source: String, declared: List<Pair<String, String>>, options: List<DescriptorOption>): Map<String, String> {
        val given = LinkedHashMap<String, String>()
        val positional = options.takeWhile { it.name == null }
        options.drop(positional.size).firstOrNull { it.name == null }?.let {
            throw DescriptorException(source, "the option '${it.value}' has no name but follows named ones: name it, or put it first")
        }
        if (positional.size > declared.size) {
            val properties = if (declared.size == 1) "property" else "properties"
            val names = if (declared.isEmpty()) "no properties" else "${declared.size} $properties (${declared.joinToString { it.first }})"
            val unnamed = if (positional.size == 1) "1 option without a name" else "${positional.size} options without names"
            throw DescriptorException(source, "$unnamed, but the descriptor declares $names")
        }
        positional.forEachIndexed { index, option -> given[declared[index].first] = option.value }
        for (option in options.drop(positional.size)) given[option.name ?: continue] = option.value
        val values = LinkedHashMap<String, String>()
        for ((name, default) in declared) values[name] = given.remove(name) ?: default
        return values + given
    }

    /** `$name` replaced by the value of `name`, the longest name that matches where several do (`$v`, `$version`). */
    private fun substitution(values: Map<String, String>): (String) -> String {
        val names = values.keys.filter { it.isNotEmpty() }.sortedByDescending { it.length }
        if (names.isEmpty()) return { it }
        val pattern = Regex("\\$(" + names.joinToString("|") { Regex.escape(it) } + ")")
        return { text -> pattern.replace(text) { match -> values.getValue(match.groupValues[1]) } }
    }
}
