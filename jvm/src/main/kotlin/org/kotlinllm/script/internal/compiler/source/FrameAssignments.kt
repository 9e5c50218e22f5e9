package org.kotlinllm.script.internal.compiler.source

import org.jetbrains.kotlin.lexer.KtTokens
import org.jetbrains.kotlin.psi.KtBinaryExpression
import org.jetbrains.kotlin.psi.psiUtil.collectDescendantsOfType
import org.kotlinllm.script.diagnostics.CompilerDiagnostics
import org.kotlinllm.script.diagnostics.CompilerTexts
import org.kotlinllm.script.diagnostics.DiagnosticNames
import org.kotlinllm.script.internal.libraries.DataFrameNames
import kotlin.script.experimental.api.ScriptDiagnostic

/**
 * An assignment of another frame to a `var` that the engine gave a DataFrame marker type for its column accessors
 * (`var df: DataFrame<_DataFrameType>` after `var df = dataFrameOf(…)`): `df = DataFrame.readCSV(…)` is a
 * `DataFrame<*>`, which the compiler rejects ("Assignment type mismatch"), though the `var` held any frame as the user
 * declared it. The snippet is compiled again with the assigned frame cast to the marker type, unchecked like DataFrame's
 * own `cast()`; after the snippet the engine writes the accessors of the frame's real schema.
 */
internal object FrameAssignments : SecondAttempt {

    override fun rewrite(parsed: ParsedSnippet, failed: List<ScriptDiagnostic>): SnippetRewrite? {
        val assignments = parsed.file.collectDescendantsOfType<KtBinaryExpression> { it.operationToken == KtTokens.EQ }
        val fixed = mutableSetOf<ScriptDiagnostic>()
        val insertions = mutableListOf<SnippetRewrite.Insertion>()
        for (diagnostic in failed.filter { it.severity >= ScriptDiagnostic.Severity.ERROR }) {
            if (CompilerDiagnostics.name(diagnostic) != DiagnosticNames.ASSIGNMENT_TYPE_MISMATCH) continue
            val marker = CompilerTexts.FRAME_MARKER_EXPECTED.find(CompilerDiagnostics.text(diagnostic))?.groupValues?.get(1) ?: continue
            if (!marker.startsWith(DataFrameNames.MARKER_PREFIX)) continue
            val start = diagnostic.location?.start ?: continue
            val offset = parsed.source.offset(start.line, start.col)
            // the compiler marks the assignment's `=`
            val assigned = assignments.firstOrNull { it.operationReference.textRange.startOffset == offset }?.right ?: continue
            fixed += diagnostic
            insertions += SnippetRewrite.Insertion(assigned.textRange.startOffset, "@Suppress(\"UNCHECKED_CAST\") ((")
            insertions += SnippetRewrite.Insertion(assigned.textRange.endOffset, ") as ${DataFrameNames.DATA_FRAME}<$marker>)")
        }
        if (insertions.isEmpty()) return null
        return SnippetRewrite.avoiding(parsed.source, insertions, fixed)
    }
}
