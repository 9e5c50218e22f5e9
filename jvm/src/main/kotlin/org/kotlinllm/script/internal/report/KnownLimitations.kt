package org.kotlinllm.script.internal.report

import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet

/**
 * Recognizes the known bugs of the K2 REPL compiler that are not worked around in what a snippet got, and says in
 * one line how to avoid them. Those worked around have no hint here: an unresolved reference inside a declaration of
 * an inferred type (ShadowingImports), inline declarations of earlier snippets (their class files join the
 * classpath) and inline ones referring to the ScriptScope (its functions are imports), value classes in signatures
 * between snippets (ValueClassCalls).
 */
internal class KnownLimitations {

    /** An internal failure of the compiler (its backend or its evaluator of constants) as one error. */
    fun compilerCrash(cause: Throwable, parsed: ParsedSnippet): List<Diagnostic> {
        val causes = generateSequence(cause) { it.cause }.toList()
        val root = causes.last()
        val line = SnippetNames.clean("${root.javaClass.simpleName}: ${root.message.orEmpty().lineSequence().first()}")
        // KT-77816: listed as fixed in 2.4.0-Beta2, but a const val of an earlier snippet (top-level, or of an object
        // or companion) still crashes the constant evaluator of 2.4.21 where it is used: "Unknown function: MAX(Limits)"
        val constant = causes.firstNotNullOfOrNull { UNKNOWN_CONSTANT.find(it.message.orEmpty())?.groupValues?.get(1) }
        val range = constant?.let { name -> locate(parsed, name) } ?: firstLine(parsed)
        val hint = constant?.let {
            "a known bug of the K2 REPL compiler: the const val '$it' of an earlier " +
                "snippet cannot be used here; declare it again without 'const'"
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
        val UNKNOWN_CONSTANT = Regex("""Unknown function: (\w+)\(Snippet\d+[.\w]*\)""")
    }
}
