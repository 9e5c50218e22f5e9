package org.kotlinllm.script.internal.core

import org.kotlinllm.script.completion.Completion
import org.kotlinllm.script.completion.CompletionItem
import org.kotlinllm.script.completion.Inspection
import org.kotlinllm.script.internal.compiler.completion.CodeInsight
import org.kotlinllm.script.internal.compiler.completion.FirCompletion
import org.kotlinllm.script.internal.compiler.completion.KotlinKeywords
import org.kotlinllm.script.internal.session.SessionSymbols
import java.util.concurrent.TimeUnit

/** Where the session's compiler is in its start, for a completion that waited for it. */
internal enum class StartState { STARTING, STARTED, FAILED }

/**
 * Completion and inspection. Completion is by static type, from the K2 frontend's resolution of the session's
 * snippets and the code up to the cursor ([FirCompletion]). A request while the compiler starts waits for it (at most
 * [START_WAIT_MILLIS]); when it does not start in time, or stays busy compiling, the names the session declared,
 * provided properties, scope functions and keywords are offered, and the reply says why.
 */
internal class Completer(
    private val symbols: SessionSymbols,
    private val provided: Set<String>,
    /** The compiler's insight once it is up, waiting for its start at most the milliseconds given. */
    private val startedInsight: (Long) -> Pair<CodeInsight?, StartState>,
) {

    /** The insight, waiting for the compiler's start (a request right after the session's start); the wait's millis. */
    private fun insight(): Triple<CodeInsight?, StartState, Long> {
        val asked = System.nanoTime()
        val (runner, state) = startedInsight(START_WAIT_MILLIS)
        return Triple(runner, state, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked))
    }

    /** Why names are offered instead of what the compiler resolved; [started] when the compiler is up. */
    private fun fallback(state: StartState, started: String): String = when (state) {
        StartState.STARTING -> "the compiler did not start within ${START_WAIT_MILLIS / 1000} s"
        StartState.FAILED -> "the compiler could not be started"
        StartState.STARTED -> started
    }

    fun complete(code: String, cursor: Int): Completion {
        val end = cursor.coerceIn(0, code.length)
        var start = end
        while (start > 0 && isIdentifierPart(code[start - 1])) start--
        val prefix = code.substring(start, end)
        val (insight, state, waited) = insight()
        val typed = insight?.complete(code.substring(0, end) + FirCompletion.MARKER, prefix, LOCK_WAIT_MILLIS)
        if (typed != null) {
            val items = typed.map { CompletionItem(it.text, it.kind, it.signature) }
            return Completion(items.map { it.text }, start, end, items, byType = true, waitedMillis = waited)
        }
        val fallback =
            fallback(state, "the compiler stayed busy with a cell for ${LOCK_WAIT_MILLIS / 1000} s, or could not resolve the code")
        if (start > 0 && code[start - 1] == '.') return Completion(emptyList(), start, end, waitedMillis = waited, fallback = fallback)
        val candidates = symbols.names() + provided + SCOPE_FUNCTIONS + KotlinKeywords.HARD + KotlinKeywords.SOFT + COMMON_FUNCTIONS
        val matches = candidates.filter { (it.startsWith(prefix) && it != prefix) || (it == prefix && prefix.isNotEmpty()) }
            .distinct()
            .sortedWith(compareBy({ it !in symbols.names() && it !in provided }, { it.lowercase() }))
        return Completion(matches, start, end, waitedMillis = waited, fallback = fallback)
    }

    fun inspect(code: String, cursor: Int): Inspection {
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
        if (start == end) return Inspection(null, byType = false, fallback = "no name at the cursor")
        val name = code.substring(start, end)
        val (insight, state, waited) = insight()
        // line ends replaced one character for one: [start] is an offset into [code]
        val typed = insight?.inspect(code.replace("\r\n", " \n").replace('\r', '\n'), start, LOCK_WAIT_MILLIS)
        if (typed != null) return Inspection(typed.text + valueOf(typed.sessionName), byType = true, waitedMillis = waited)
        val text = symbols.declaration(name)?.let { it.header + valueOf(name) }
        val busy = "the compiler resolved no declaration there, or stayed busy with a cell for ${LOCK_WAIT_MILLIS / 1000} s"
        return Inspection(text, byType = false, waitedMillis = waited, fallback = fallback(state, busy))
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

        /** How long a completion asked while the session starts waits for the compiler before it offers names only. */
        const val START_WAIT_MILLIS = 60_000L
        val INPUT_FUNCTIONS = listOf("readPassword", "readLine", "readln")
        val SCOPE_FUNCTIONS = listOf("await", "launch", "async", "coroutineContext", "scriptScope") + INPUT_FUNCTIONS
        val COMMON_FUNCTIONS = listOf(
            "println", "print", "listOf", "mutableListOf", "mapOf", "mutableMapOf", "setOf", "mutableSetOf",
            "arrayOf", "emptyList", "emptyMap", "require", "check", "error", "repeat", "buildString", "buildList",
            "lazy", "run", "with", "apply", "also", "let", "takeIf", "maxOf", "minOf", "delay",
        )
    }
}
