package org.kotlinllm.script.internal.compiler.source

import org.jetbrains.kotlin.psi.KtDestructuringDeclaration
import org.jetbrains.kotlin.psi.KtExpression
import org.jetbrains.kotlin.psi.KtProperty
import org.jetbrains.kotlin.psi.KtScript
import org.jetbrains.kotlin.psi.KtScriptInitializer
import org.kotlinllm.script.diagnostics.CompilerDiagnostics
import org.kotlinllm.script.diagnostics.DiagnosticNames
import kotlin.script.experimental.api.ScriptDiagnostic

/**
 * Top-level suspend calls (`val a = fetch()`, `delay(100)`, `for (i in 1..3) { delay(10) }`). The K2 REPL compiler
 * builds a snippet's top-level code into a plain function, `$$eval`, and has no option to make it suspending, so such
 * a call fails with "Suspend function '…' can only be called from a coroutine or another suspend function". Notebook
 * users expect it to run, as the cell already has a coroutine scope. So when the first compilation reports that
 * error inside a top-level statement, property initializer or delegate, the snippet is compiled again with each such
 * expression inside `runSuspending { … }`, which runs it on the session's scope like `await` (cancelled by an
 * interrupt). The wrapper is inserted on the expression's own lines, so stack traces keep the user's lines, and the
 * value and type of the expression stay its own. Calls inside functions and classes are left as they are: there the
 * error is the user's to fix.
 */
// KT-74683 ([K2 Repl] Does not support suspend functions): listed as fixed in 2.4.0-Beta1, still reproduces on 2.4.21.
internal object SuspendingStatements : SecondAttempt {

    private const val WRAPPER = "org.kotlinllm.script.runtime.runSuspending"

    private val illegalSuspendCall =
        setOf(DiagnosticNames.ILLEGAL_SUSPEND_FUNCTION_CALL, DiagnosticNames.ILLEGAL_SUSPEND_PROPERTY_ACCESS)

    override fun rewrite(parsed: ParsedSnippet, failed: List<ScriptDiagnostic>): SnippetRewrite? {
        val script = parsed.file.script ?: return null
        val wrapped = LinkedHashMap<Int, KtExpression>()
        val fixed = HashSet<ScriptDiagnostic>()
        for (diagnostic in failed) {
            if (diagnostic.severity < ScriptDiagnostic.Severity.ERROR ||
                CompilerDiagnostics.name(diagnostic) !in illegalSuspendCall
            ) continue
            val start = diagnostic.location?.start ?: continue
            val expression = topLevelExpressionAt(script, parsed.source.offset(start.line, start.col)) ?: continue
            wrapped[expression.textRange.startOffset] = expression
            fixed += diagnostic
        }
        if (wrapped.isEmpty()) return null
        val insertions = wrapped.values.flatMap { expression ->
            listOf(
                SnippetRewrite.Insertion(expression.textRange.startOffset, "$WRAPPER { "),
                SnippetRewrite.Insertion(expression.textRange.endOffset, " }"),
            )
        }
        return SnippetRewrite.avoiding(parsed.source, insertions, fixed)
    }

    /** The top-level statement, or the initializer or delegate of a top-level property, holding [offset]. */
    private fun topLevelExpressionAt(script: KtScript, offset: Int): KtExpression? {
        val declaration = script.declarations.firstOrNull { it.textRange.containsOffset(offset) } ?: return null
        val candidates = when (declaration) {
            is KtScriptInitializer -> listOfNotNull(declaration.body)
            is KtProperty -> listOfNotNull(declaration.initializer, declaration.delegateExpression)
            is KtDestructuringDeclaration -> listOfNotNull(declaration.initializer)
            else -> emptyList()
        }
        return candidates.firstOrNull { it.textRange.containsOffset(offset) }
    }
}
