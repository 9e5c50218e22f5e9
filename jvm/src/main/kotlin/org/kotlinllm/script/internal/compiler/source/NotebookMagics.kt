package org.kotlinllm.script.internal.compiler.source

import org.jetbrains.kotlin.com.intellij.psi.PsiErrorElement
import org.jetbrains.kotlin.lexer.KtTokens
import org.jetbrains.kotlin.psi.KtBlockExpression
import org.jetbrains.kotlin.psi.KtFile
import org.jetbrains.kotlin.psi.KtScript
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange

/**
 * Where a snippet has the line magics (`%trackExecution`, …) and REPL commands (`:help`, …) of JetBrains' Kotlin
 * kernel (`%use` is [UseMagic]'s): a line of its top level starting with `%name` or `:name`. What each does is the
 * engine's magics package's; this object finds them and blanks their lines for the compiler, so every offset stays.
 *
 * Only a snippet that does not parse is looked at, and only lines whose `%` or `:` the parser found at the top
 * level, outside any declaration, expression, string or comment: valid Kotlin is never a magic (`::name` is a
 * callable reference, and a `:` or `%` continuing a declaration or an expression inside brackets belongs to it).
 */
internal object NotebookMagics {

    private val magicLine = Regex("""^[ \t]*([%:])([A-Za-z]\w*)(.*)$""")

    /** A cell that is one REPL command and nothing else (`:help`), as JetBrains' kernel reads one. */
    private val commandCell = Regex("""^\s*:([A-Za-z]\w*)[ \t]*(//[^\n]*)?\s*$""")

    /**
     * One magic line: [sign] `%` or `:`, its [name], the [arguments] after it (trimmed, a `//` comment left out),
     * [range] from the sign to the line's last non-blank character, the offsets [lineStart]..[lineEnd] of its line.
     */
    class Line(val sign: Char, val name: String, val arguments: String, val range: SourceRange, val lineStart: Int, val lineEnd: Int) {
        /** The line as written, from its sign: `%trackExecution all`. */
        val text: String get() = "$sign$name${if (arguments.isEmpty()) "" else " $arguments"}"
    }

    /** The name of the REPL command that [code] is made of alone (`help` for `" :help\n"`); null for other code. */
    fun commandOf(code: String): String? = commandCell.matchEntire(code)?.groupValues?.get(1)

    /** The magic lines of [parsed], in order; empty when it has none (always when it parses). */
    fun lines(parsed: ParsedSnippet): List<Line> {
        if (parsed.syntaxErrors.isEmpty()) return emptyList()
        val source = parsed.source
        return (1..source.lineCount).mapNotNull { lineNumber ->
            val line = source.line(lineNumber) ?: return@mapNotNull null
            val match = magicLine.find(line) ?: return@mapNotNull null
            val column = match.groups[1]?.range?.first ?: return@mapNotNull null
            val lineStart = source.offset(lineNumber, 1)
            val start = lineStart + column
            if (!atTopLevel(parsed.file, start)) return@mapNotNull null
            val (sign, name, arguments) = match.destructured
            val range = source.range(start, lineStart + line.trimEnd().length)
            Line(sign[0], name, arguments.substringBefore("//").trim(), range, lineStart, lineStart + line.length)
        }
    }

    /** [text] with the [lines] made blank (spaces, so every offset and line stays). */
    fun blanked(text: String, lines: List<Line>): String {
        val code = StringBuilder(text)
        for (line in lines) for (i in line.lineStart until line.lineEnd) code.setCharAt(i, ' ')
        return code.toString()
    }

    /** Whether the `%` or `:` at [offset] is a token the parser found where a statement starts. */
    fun atTopLevel(file: KtFile, offset: Int): Boolean {
        val leaf = file.findElementAt(offset) ?: return false
        if (leaf.node.elementType != KtTokens.PERC && leaf.node.elementType != KtTokens.COLON) return false
        var parent = leaf.parent
        while (parent is PsiErrorElement) parent = parent.parent
        return parent is KtFile || parent is KtScript || (parent is KtBlockExpression && parent.parent is KtScript)
    }

    /** The error of a magic [line] this kernel does not know, or of a REPL command among other code ([known]). */
    fun refused(line: Line, known: Boolean): Diagnostic {
        val written = "`${line.sign}${line.name}`"
        val (message, hint) = when {
            line.sign == ':' && known ->
                "$written is a REPL command: it runs as a cell of its own" to
                    if (line.name == "vars") "run it alone, or call vars() here" else "run it alone, in a cell of its own"
            line.sign == ':' ->
                "$written is not a REPL command of this kernel, and no Kotlin statement starts with `:`" to
                    "a cell of its own `:help` lists the commands and magics"
            else ->
                "$written is not a line magic of this kernel, and no Kotlin statement starts with `%`" to
                    "a cell of its own `:help` lists the magics; @file:DependsOn(\"group:artifact\") adds a library"
        }
        return Diagnostic(Severity.ERROR, message, line.range, hint)
    }
}
