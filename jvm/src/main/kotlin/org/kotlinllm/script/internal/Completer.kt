package org.kotlinllm.script.internal

import org.kotlinllm.script.Completion
import java.lang.reflect.Modifier

/**
 * Completion and inspection over what a session declared: names of declarations, provided properties and scope
 * functions, keywords, and after a dot the public members of the current value of a property or object. Answers
 * from the session's start on, before its compiler is up: the names of [provided] properties and the keywords.
 */
internal class Completer(private val symbols: SessionSymbols, private val provided: Set<String>) {

    fun complete(code: String, cursor: Int): Completion {
        val end = cursor.coerceIn(0, code.length)
        var start = end
        while (start > 0 && isIdentifierPart(code[start - 1])) start--
        val prefix = code.substring(start, end)
        val candidates = if (start > 0 && code[start - 1] == '.') {
            receiverName(code, start - 1)?.let(::members).orEmpty()
        } else {
            symbols.names() + provided + SCOPE_FUNCTIONS + KotlinKeywords.HARD + KotlinKeywords.SOFT + COMMON_FUNCTIONS
        }
        val matches = candidates.filter { (it.startsWith(prefix) && it != prefix) || (it == prefix && prefix.isNotEmpty()) }
            .distinct()
            .sortedWith(compareBy({ it !in symbols.names() && it !in provided }, { it.lowercase() }))
        return Completion(matches, start, end)
    }

    fun inspect(code: String, cursor: Int): String? {
        val at = cursor.coerceIn(0, code.length)
        var start = at
        while (start > 0 && isIdentifierPart(code[start - 1])) start--
        var end = at
        while (end < code.length && isIdentifierPart(code[end])) end++
        if (start == end) return null
        val name = code.substring(start, end)
        val declaration = symbols.declaration(name) ?: return null
        return buildString {
            append(declaration.header)
            symbols.value(name)?.getOrNull()?.let { value ->
                append("\n\nvalue: ").append(value.javaClass.name).append(" = ").append(preview(value))
            }
        }
    }

    private fun preview(value: Any): String {
        val text = runCatching { value.toString() }.getOrElse { "<toString() failed: $it>" }
        return if (text.length <= PREVIEW_CHARS) text else text.take(PREVIEW_CHARS) + "…"
    }

    private fun receiverName(code: String, dot: Int): String? {
        var start = dot
        while (start > 0 && isIdentifierPart(code[start - 1])) start--
        return code.substring(start, dot).takeIf { it.isNotEmpty() }
    }

    private fun members(name: String): List<String> {
        val value = symbols.value(name)?.getOrNull() ?: return emptyList()
        val type = value.javaClass
        val methods = type.methods.filter { Modifier.isPublic(it.modifiers) && !it.isSynthetic && '$' !in it.name }
        val properties = methods.filter { it.parameterCount == 0 && it.name.length > 3 && it.name.startsWith("get") }
            .map { it.name.substring(3).replaceFirstChar(Char::lowercaseChar) }
        val booleans = methods.filter { it.parameterCount == 0 && it.name.length > 2 && it.name.startsWith("is") }.map { it.name }
        val fields = type.fields.filter { Modifier.isPublic(it.modifiers) }.map { it.name }
        return (properties + booleans + methods.map { it.name } + fields).filter { it != "getClass" && it != "class" }
    }

    private fun isIdentifierPart(c: Char) = c == '_' || c.isLetterOrDigit()

    private companion object {
        const val PREVIEW_CHARS = 200
        val INPUT_FUNCTIONS = listOf("readPassword", "readLine", "readln")
        val SCOPE_FUNCTIONS = listOf("await", "launch", "async", "coroutineContext", "scriptScope") + INPUT_FUNCTIONS
        val COMMON_FUNCTIONS = listOf(
            "println", "print", "listOf", "mutableListOf", "mapOf", "mutableMapOf", "setOf", "mutableSetOf",
            "arrayOf", "emptyList", "emptyMap", "require", "check", "error", "repeat", "buildString", "buildList",
            "lazy", "run", "with", "apply", "also", "let", "takeIf", "maxOf", "minOf", "delay",
        )
    }
}
