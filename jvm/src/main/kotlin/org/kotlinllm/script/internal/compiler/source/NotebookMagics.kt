package org.kotlinllm.script.internal.compiler.source

import org.jetbrains.kotlin.com.intellij.psi.PsiErrorElement
import org.jetbrains.kotlin.lexer.KtTokens
import org.jetbrains.kotlin.psi.KtBlockExpression
import org.jetbrains.kotlin.psi.KtFile
import org.jetbrains.kotlin.psi.KtScript
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity

/**
 * The line magics (`%trackClasspath`, …) and REPL commands (`:help`, `:vars`, …) of JetBrains' Kotlin kernel,
 * which this kernel does not have (`%use` it has: [UseMagic]): a line of a snippet's top level starting with `%name` or `:name` is
 * reported as an error naming what to write here instead, rather than as the syntax error the compiler sees.
 *
 * Only a snippet that does not parse is looked at, and only lines whose `%` or `:` the parser found at the top
 * level, outside any declaration, expression, string or comment: valid Kotlin is never a magic (`::name` is a
 * callable reference, and a `:` or `%` continuing a declaration or an expression inside brackets belongs to it).
 */
internal object NotebookMagics {

    private val magicLine = Regex("""^[ \t]*([%:])([A-Za-z]\w*)(.*)$""")

    /** The magics of [parsed], each located at its line; empty when it has none. */
    fun diagnostics(parsed: ParsedSnippet): List<Diagnostic> {
        if (parsed.syntaxErrors.isEmpty()) return emptyList()
        val source = parsed.source
        return (1..source.lineCount).mapNotNull { lineNumber ->
            val line = source.line(lineNumber) ?: return@mapNotNull null
            val match = magicLine.find(line) ?: return@mapNotNull null
            val column = match.groups[1]?.range?.first ?: return@mapNotNull null
            val start = source.offset(lineNumber, column + 1)
            if (!atTopLevel(parsed.file, start)) return@mapNotNull null
            val (sign, name, _) = match.destructured
            val (message, hint) = advice(sign, name)
            Diagnostic(Severity.ERROR, message, source.range(start, start + line.trimEnd().length - column), hint)
        }
    }

    /** Whether the `%` or `:` at [offset] is a token the parser found where a statement starts. */
    fun atTopLevel(file: KtFile, offset: Int): Boolean {
        val leaf = file.findElementAt(offset) ?: return false
        if (leaf.node.elementType != KtTokens.PERC && leaf.node.elementType != KtTokens.COLON) return false
        var parent = leaf.parent
        while (parent is PsiErrorElement) parent = parent.parent
        return parent is KtFile || parent is KtScript || (parent is KtBlockExpression && parent.parent is KtScript)
    }

    private fun advice(sign: String, name: String): Pair<String, String> {
        val magic = "`$sign$name`"
        val kind = if (sign == "%") "line magic" else "REPL command"
        val none = if (sign == "%") "this kernel has no magics" else "this kernel has no commands"
        val hint = when ("$sign$name") {
            "%trackClasspath", ":classpath" ->
                "@file:DependsOn(\"group:artifact\") adds a library to the classpath, and a cell using it reports the versions it resolved"
            "%trackExecution" -> "this kernel runs a cell's code as written: delete this line"
            "%dumpClassesForSpark" -> "this kernel does not write the cells' classes for Spark: delete this line"
            "%output" ->
                "output is limited by the kernel's settings max_output_chars and max_display_bytes, not by a cell: " +
                    "delete this line"
            "%logLevel" -> "the kernel's log level is its setting log_level: delete this line"
            ":vars" -> "call vars(): it lists the session's declarations with their types and values"
            ":help" ->
                "cells are plain Kotlin: @file:DependsOn(\"group:artifact\") adds a library, vars() lists the declarations, " +
                    "DISPLAY/HTML/Image show rich output; the kernel's README tells the rest"
            else ->
                return "$magic looks like a $kind of JetBrains' Kotlin kernel; $none, and no Kotlin statement starts with `$sign`" to
                    "write Kotlin: @file:DependsOn(\"group:artifact\") adds a library, vars() lists the declarations"
        }
        return "$magic is a $kind of JetBrains' Kotlin kernel; $none" to hint
    }
}
