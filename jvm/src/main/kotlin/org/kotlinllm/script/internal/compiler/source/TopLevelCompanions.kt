package org.kotlinllm.script.internal.compiler.source

import org.jetbrains.kotlin.lexer.KtTokens
import org.jetbrains.kotlin.psi.KtObjectDeclaration
import org.kotlinllm.script.diagnostics.CompilerDiagnostics
import org.kotlinllm.script.diagnostics.DiagnosticNames
import kotlin.script.experimental.api.ScriptDiagnostic

/**
 * A `companion object Name { … }` at the top level of a snippet, which Kotlin notebooks accept (their REPL compiles
 * a cell as a class, whose companion it becomes) and the K2 REPL rejects with "Modifier 'companion' is not applicable
 * inside 'file'". The snippet is compiled again with the modifier commented out, so the object is declared as
 * `object Name`, and `Name.member` works as it does in those notebooks.
 */
// No KT issue, no compiler bug: the K2 REPL checks a snippet's top level as a file's (2.4.21), Kotlin notebooks as a class's.
internal object TopLevelCompanions : SecondAttempt {

    override fun rewrite(parsed: ParsedSnippet, failed: List<ScriptDiagnostic>): SnippetRewrite? {
        val modifiers = parsed.file.script?.declarations.orEmpty()
            .filterIsInstance<KtObjectDeclaration>()
            .mapNotNull { it.modifierList?.getModifier(KtTokens.COMPANION_KEYWORD) }
        if (modifiers.isEmpty()) return null
        // the compiler marks the modifier; its name alone would also fit another modifier in the wrong place
        val fixed = failed.filter { diagnostic ->
            val start = diagnostic.location?.start
            diagnostic.severity >= ScriptDiagnostic.Severity.ERROR && start != null &&
                CompilerDiagnostics.name(diagnostic) == DiagnosticNames.WRONG_MODIFIER_CONTAINING_DECLARATION &&
                parsed.source.offset(start.line, start.col).let { offset -> modifiers.any { it.textRange.containsOffset(offset) } }
        }.toSet()
        if (fixed.isEmpty()) return null
        val insertions = modifiers.flatMap { modifier ->
            listOf(
                SnippetRewrite.Insertion(modifier.textRange.startOffset, "/*"),
                SnippetRewrite.Insertion(modifier.textRange.endOffset, "*/"),
            )
        }
        return SnippetRewrite.avoiding(parsed.source, insertions, fixed)
    }
}
