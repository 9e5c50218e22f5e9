package org.kotlinllm.script

import org.kotlinllm.script.internal.compiler.completion.FirCompletion
import org.kotlinllm.script.internal.compiler.completion.KotlinKeywords
import org.kotlinllm.script.internal.session.SessionSymbols

/**
 * Completion and inspection. Completion is by static type, from the K2 frontend's resolution of the session's
 * snippets and the code up to the cursor ([FirCompletion]); before the compiler is up, or while it stays busy
 * compiling, it offers the names the session declared, provided properties, scope functions and keywords.
 */
internal class Completer(
    private val symbols: SessionSymbols,
    private val provided: Set<String>,
    /** The session's runner once its compiler is up. */
    private val runner: () -> SnippetRunner?,
) {

    fun complete(code: String, cursor: Int): Completion {
        val end = cursor.coerceIn(0, code.length)
        var start = end
        while (start > 0 && isIdentifierPart(code[start - 1])) start--
        val prefix = code.substring(start, end)
        val typed = runner()?.complete(code.substring(0, end) + FirCompletion.MARKER, prefix, LOCK_WAIT_MILLIS)
        if (typed != null) {
            val items = typed.map { CompletionItem(it.text, it.kind, it.signature) }
            return Completion(items.map { it.text }, start, end, items, byType = true)
        }
        if (start > 0 && code[start - 1] == '.') return Completion(emptyList(), start, end)
        val candidates = symbols.names() + provided + SCOPE_FUNCTIONS + KotlinKeywords.HARD + KotlinKeywords.SOFT + COMMON_FUNCTIONS
        val matches = candidates.filter { (it.startsWith(prefix) && it != prefix) || (it == prefix && prefix.isNotEmpty()) }
            .distinct()
            .sortedWith(compareBy({ it !in symbols.names() && it !in provided }, { it.lowercase() }))
        return Completion(matches, start, end)
    }

    fun inspect(code: String, cursor: Int): String? {
        var at = cursor.coerceIn(0, code.length)
        // just inside a call's parentheses (`println(|`, where Shift+Tab is pressed): the function called
        if (at > 0 && !isIdentifierPart(code[at - 1]) && (at == code.length || !isIdentifierPart(code[at]))) {
            var before = at
            while (before > 0 && code[before - 1] == ' ') before--
            if (before > 0 && code[before - 1] == '(') at = before - 1
        }
        var start = at
        while (start > 0 && isIdentifierPart(code[start - 1])) start--
        var end = at
        while (end < code.length && isIdentifierPart(code[end])) end++
        if (start == end) return null
        val name = code.substring(start, end)
        val runner = runner()
        // line ends replaced one character for one: [start] is an offset into [code]
        val typed = runner?.inspect(code.replace("\r\n", " \n").replace('\r', '\n'), start, LOCK_WAIT_MILLIS)
        if (typed != null) return typed.text + valueOf(typed.sessionName)
        val declaration = symbols.declaration(name) ?: return null
        return declaration.header + valueOf(name)
    }

    /** `value: java.util.ArrayList = [milk]` of the session's property or object [name], after a blank line. */
    private fun valueOf(name: String?): String {
        val value = name?.let { symbols.value(it) }?.getOrNull() ?: return ""
        return "\n\nvalue: ${value.javaClass.name} = ${preview(value)}"
    }

    private fun preview(value: Any): String {
        val text = runCatching { value.toString() }.getOrElse { "<toString() failed: $it>" }
        return if (text.length <= PREVIEW_CHARS) text else text.take(PREVIEW_CHARS) + "…"
    }

    private fun isIdentifierPart(c: Char) = c == '_' || c.isLetterOrDigit()

    private companion object {
        const val PREVIEW_CHARS = 200

        /** How long a completion waits for a snippet's compilation to end before it offers names only. */
        const val LOCK_WAIT_MILLIS = 2_000L
        val INPUT_FUNCTIONS = listOf("readPassword", "readLine", "readln")
        val SCOPE_FUNCTIONS = listOf("await", "launch", "async", "coroutineContext", "scriptScope") + INPUT_FUNCTIONS
        val COMMON_FUNCTIONS = listOf(
            "println", "print", "listOf", "mutableListOf", "mapOf", "mutableMapOf", "setOf", "mutableSetOf",
            "arrayOf", "emptyList", "emptyMap", "require", "check", "error", "repeat", "buildString", "buildList",
            "lazy", "run", "with", "apply", "also", "let", "takeIf", "maxOf", "minOf", "delay",
        )
    }
}
