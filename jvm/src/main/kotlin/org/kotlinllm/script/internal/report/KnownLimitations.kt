package org.kotlinllm.script.internal.report

import org.kotlinllm.script.diagnostics.CompilerTexts
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.DiagnosticNames
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.diagnostics.SourceText
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet

/**
 * Recognizes the known bugs of the K2 REPL compiler that are not worked around in what a snippet got, and says in
 * one line how to avoid them. Those worked around have no hint here: an unresolved reference inside a declaration of
 * an inferred type (ShadowingImports), inline declarations of earlier snippets (their class files join the
 * classpath) and inline ones referring to the ScriptScope (its functions are imports), value classes in signatures
 * between snippets (ValueClassCalls).
 */
internal class KnownLimitations(
    /** Whether the sessions compile with kotlinx.serialization's plugin, whose generated members some hints name. */
    private val serializationPlugin: Boolean,
) {

    /**
     * [diagnostics] of a snippet that failed to compile, each with a hint when a known limitation caused it.
     * The K2 REPL does not resolve the `serializer()` that kotlinx.serialization's plugin generates on a class's
     * companion when it is called on the class (`Person.serializer()`, also in the snippet declaring `Person`); it
     * does when the companion is named, and the plugin's other routes work.
     */
    fun compilationFailed(diagnostics: List<Diagnostic>, source: SourceText): List<Diagnostic> {
        if (!serializationPlugin) return diagnostics
        return diagnostics.map { diagnostic ->
            val range = diagnostic.range
            if (diagnostic.hint != null || range == null || diagnostic.name != DiagnosticNames.UNRESOLVED_REFERENCE) return@map diagnostic
            val start = source.offset(range.startLine, range.startColumn)
            val reference = source.text.substring(start, source.offset(range.endLine, range.endColumn).coerceAtLeast(start))
            // on a class, not on a value of a type
            if (reference != SERIALIZER || CompilerTexts.RECEIVER_TYPE.containsMatchIn(diagnostic.message)) return@map diagnostic
            val before = source.text.substring(0, start)
            val receiver = CLASS_RECEIVER.find(before)?.groupValues?.get(1) ?: return@map diagnostic
            diagnostic.copy(
                hint = "a known limitation of the K2 REPL: the serializer() that kotlinx.serialization generates is not " +
                    "found on the class; write serializer<$receiver>() or $receiver.Companion.serializer()",
            )
        }
    }

    /** An internal failure of the compiler (its backend or its evaluator of constants) as one error. */
    fun compilerCrash(cause: Throwable, parsed: ParsedSnippet): List<Diagnostic> {
        val causes = generateSequence(cause) { it.cause }.toList()
        val root = causes.last()
        val line = SnippetNames.clean("${root.javaClass.simpleName}: ${root.message.orEmpty().lineSequence().first()}")
        // KT-77816: listed as fixed in 2.4.0-Beta2, but a const val of an earlier snippet (top-level, or of an object
        // or companion) still crashes the constant evaluator of 2.4.21 where it is used: "Unknown function: MAX(Limits)"
        val constant = causes.firstNotNullOfOrNull { CompilerTexts.UNKNOWN_CONSTANT.find(it.message.orEmpty())?.groupValues?.get(1) }
        // no public KT issue: a call of toString(), hashCode() or equals() on a data class nested in a class of an
        // earlier snippet, the user's or one in inlined code, crashes the 2.4.21 backend ("Only componentN functions
        // should be cached this way"); `==`, string templates and calls through Any compile
        val member = causes.firstNotNullOfOrNull { CompilerTexts.NESTED_DATA_MEMBER.find(it.message.orEmpty())?.groupValues?.get(1) }
        // the user's own call of it, if any (code it calls may make it too: an inline function's)
        val call = member?.let { name ->
            Regex("""\.\s*($name)\s*\(""").find(parsed.source.text)?.groups?.get(1)?.range
                ?.let { parsed.source.range(it.first, it.last + 1) }
        }
        val argument = if (member == "equals") "other" else ""
        val range = constant?.let { name -> locate(parsed, name) } ?: call ?: firstLine(parsed)
        val hint = when {
            constant != null ->
                "a known bug of the K2 REPL compiler: the const val '$constant' of an earlier " +
                    "snippet cannot be used here; declare it again without 'const'"
            member != null && call != null ->
                "a known bug of the K2 REPL compiler: $member() of a data class nested in a class of an earlier " +
                    "snippet cannot be called on it here; call it on the value as Any ((value as Any).$member($argument)), " +
                    "or declare the data class at top level"
            member != null ->
                "a known bug of the K2 REPL compiler: code using the $member() of a data class nested in a class of " +
                    "an earlier snippet cannot be compiled here; declare the data class at top level"
            else -> null
        }
        return listOf(Diagnostic(Severity.ERROR, "The Kotlin compiler failed internally ($line)", range, hint))
    }

    private fun locate(parsed: ParsedSnippet, name: String): SourceRange? {
        val index = Regex("""\b${Regex.escape(name)}\b""").find(parsed.source.text)?.range ?: return null
        return parsed.source.range(index.first, index.last + 1)
    }

    private fun firstLine(parsed: ParsedSnippet): SourceRange {
        val line = parsed.source.line(1).orEmpty()
        return SourceRange(1, 1, 1, line.length + 1)
    }

    private companion object {
        const val SERIALIZER = "serializer"

        /** A class named before `.serializer`: `Person.`, `Outer.Inner.` (the last name is the class). */
        val CLASS_RECEIVER = Regex("""\b((?:[A-Z]\w*\.)*[A-Z]\w*)\.\s*$""")
    }
}
