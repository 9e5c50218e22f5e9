package org.kotlinllm.script.internal.report

import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.internal.bytecode.ValueClassCalls
import org.kotlinllm.script.internal.compiler.source.DeclaredName
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet

/**
 * Recognizes the known bugs of the K2 REPL compiler in what a snippet got, and says in one line how to avoid them.
 * (Bug 2, declarations with value classes in their signature called from later snippets by names they are not
 * declared under, is repaired in the bytecode: see [ValueClassCalls].)
 */
internal class KnownLimitations {

    private val earlierDeclarations = HashMap<String, DeclaredName>()

    /** Remembers what a snippet that ran declared. */
    fun declared(parsed: ParsedSnippet) {
        for (declaration in parsed.declarations) earlierDeclarations[declaration.name] = declaration
    }

    /**
     * Bug 1: a declaration of an inferred type that refers to an earlier snippet's declaration cannot be resolved
     * when the same snippet's code uses it.
     */
    fun compileHint(message: String, range: SourceRange?, parsed: ParsedSnippet): String? {
        val unresolved = UNRESOLVED.find(message)?.groupValues?.get(1) ?: return null
        if (range == null) return null
        val holder = parsed.declarations.firstOrNull { it.inferredType && it.range.contains(range) } ?: return null
        if (unresolved !in earlierDeclarations && unresolved !in SCOPE_MEMBERS && parsed.declarations.none { it.name == unresolved }) {
            return null
        }
        val example = "${holder.header}: <Type> = …"
        return "a known bug of the K2 REPL compiler: '$unresolved' is not resolved inside '${holder.name}', " +
            "whose type is inferred, when this snippet also uses '${holder.name}'; declare the type: $example"
    }

    /** Bug 3: an inline function or property of an earlier snippet crashes the compiler's backend. */
    fun compilerCrash(cause: Throwable, parsed: ParsedSnippet): List<Diagnostic> {
        val causes = generateSequence(cause) { it.cause }.toList()
        val root = causes.last()
        val messages = causes.map { it.message.orEmpty() }
        val inlineCall = messages.firstNotNullOfOrNull { INLINE_CALL.find(it)?.groupValues?.get(1) }
        val inlineDeclaration = messages.firstNotNullOfOrNull { INLINE_DECLARATION.find(it)?.groupValues?.get(1) }
            ?.takeIf { name -> parsed.declarations.any { it.name == name } }
        val line = SnippetNames.clean("${root.javaClass.simpleName}: ${root.message.orEmpty().lineSequence().first()}")
        val constant = messages.firstNotNullOfOrNull { UNKNOWN_CONSTANT.find(it)?.groupValues?.get(1) }
        val range = (inlineCall ?: inlineDeclaration ?: constant)?.let { name -> locate(parsed, name) } ?: firstLine(parsed)
        val hint = when {
            inlineCall != null ->
                "a known bug of the K2 REPL compiler: the inline declaration '$inlineCall' of an " +
                    "earlier snippet cannot be called here; declare it again without 'inline', or in this snippet"
            inlineDeclaration != null ->
                "a known bug of the K2 REPL compiler: the inline declaration " +
                    "'$inlineDeclaration' refers to the ScriptScope (like coroutineContext), which cannot be compiled; " +
                    "declare it without 'inline'"
            constant != null ->
                "a known bug of the K2 REPL compiler: the const val '$constant' of an earlier " +
                    "snippet cannot be used here; declare it again without 'const'"
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

    private fun SourceRange.contains(other: SourceRange): Boolean =
        (other.startLine > startLine || (other.startLine == startLine && other.startColumn >= startColumn)) &&
            (other.endLine < endLine || (other.endLine == endLine && other.endColumn <= endColumn))

    private companion object {
        val UNRESOLVED = Regex("""Unresolved reference '([^']+)'""")
        val INLINE_CALL = Regex("""Couldn't inline method call: CALL 'public final fun (\w+)""")
        val INLINE_DECLARATION = Regex("""Exception while generating code for public final fun (\w+) .*\[inline]""")
        val UNKNOWN_CONSTANT = Regex("""Unknown function: (\w+)\(Snippet\d+[.\w]*\)""")
        val SCOPE_MEMBERS = setOf("await", "launch", "async", "coroutineContext")
    }
}
