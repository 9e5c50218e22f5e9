package org.kotlinllm.script.internal.compiler.hints

import org.jetbrains.kotlin.com.intellij.psi.util.PsiTreeUtil
import org.jetbrains.kotlin.psi.KtCallExpression
import org.jetbrains.kotlin.psi.KtSimpleNameExpression
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.DiagnosticNames
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet

/**
 * Errors that follow from another: those inside the arguments and lambdas of an unresolved call, and a call's
 * uninferred type parameter when its arguments or lambdas hold an error (`xs.sortedBy { it.nme }`: `R` cannot be
 * inferred because `nme` is unresolved), which the compiler reports first.
 */
internal object FollowOnErrors {

    /** Errors the compiler reports at a call whose arguments failed: they go once those are fixed. */
    private val INFERENCE =
        setOf(DiagnosticNames.CANNOT_INFER_PARAMETER_TYPE, DiagnosticNames.CANNOT_INFER_VALUE_PARAMETER_TYPE)

    /** [diagnostics] without the errors that follow from another, each root counting them in [Diagnostic.followers]. */
    fun group(parsed: ParsedSnippet, diagnostics: List<Diagnostic>): List<Diagnostic> {
        val errors = diagnostics.filter { it.severity == Severity.ERROR && it.range != null }
        val followers = HashMap<Diagnostic, List<Diagnostic>>()
        for (inference in errors.filter { it.name in INFERENCE }) {
            val spans = argumentSpans(parsed, inference.range ?: continue)
            val root = errors.firstOrNull { it.name !in INFERENCE && spans.any { span -> it.range?.let { r -> r in span } == true } }
            if (root != null) followers[root] = followers[root].orEmpty() + inference
        }
        for (root in errors) {
            if (root.name != DiagnosticNames.UNRESOLVED_REFERENCE || root in followers.values.flatten().toSet()) continue
            val spans = argumentSpans(parsed, root.range ?: continue)
            if (spans.isEmpty()) continue
            val inside = errors.filter {
                it !== root && it !in followers.keys &&
                    spans.any { span -> it.range?.let { r -> r in span } == true }
            }
            if (inside.isNotEmpty()) followers[root] = followers[root].orEmpty() + inside
        }
        if (followers.isEmpty()) return diagnostics
        val dropped = followers.values.flatten().toSet()
        return diagnostics.filter { it !in dropped }.map { diagnostic ->
            followers[diagnostic]?.let { diagnostic.copy(followers = it.size) } ?: diagnostic
        }
    }

    /** The arguments and lambdas of the call whose callee is the name at [range]; none when it is not a call's name. */
    private fun argumentSpans(parsed: ParsedSnippet, range: SourceRange): List<SourceRange> {
        val start = parsed.source.offset(range.startLine, range.startColumn)
        val reference = PsiTreeUtil.getParentOfType(parsed.file.findElementAt(start), KtSimpleNameExpression::class.java, false)
        val call = (reference?.parent as? KtCallExpression)?.takeIf { it.calleeExpression == reference } ?: return emptyList()
        val parts = listOfNotNull(call.valueArgumentList) + call.lambdaArguments
        return parts.map { parsed.source.range(it.textRange.startOffset, it.textRange.endOffset) }
    }
}
