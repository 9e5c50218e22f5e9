package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.DiagnosticRenderer
import org.kotlinllm.script.diagnostics.SourceText
import org.kotlinllm.script.internal.report.NotRun
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.runtime.MimeBundle

/** Where a snippet failed; the public package names it `ExecutionPhase`. */
internal enum class RunPhase { COMPILATION, EVALUATION }

/**
 * The spec's two outcomes of a snippet, as the engine produces them. The public package shows them as `ScriptResult`
 * (one mapping, `ScriptResult.of`), a host as its `HostOutcome`: the engine sits below both, so it cannot name theirs.
 */
internal sealed interface RunResult {
    /** A snippet that ran to its end: its [value] ([Unit] for none), rendered compiler [warnings], chosen versions. */
    data class Value(
        val value: Any?,
        val warnings: List<String> = emptyList(),
        val resolvedVersions: Map<String, String> = emptyMap(),
    ) : RunResult

    /** A snippet that failed to compile, or threw; [message] is the rendered report. */
    data class Error(val phase: RunPhase, val message: String) : RunResult
}

/**
 * What running one snippet gave: its [result], the exception behind an EVALUATION error it threw, for a host that
 * shows rich output the [valueBundle] of its value, and whether it was [notRun]: cancelled while it compiled.
 */
internal data class SnippetRun(
    val result: RunResult,
    val thrown: Throwable? = null,
    val valueBundle: MimeBundle? = null,
    val notRun: Boolean = false,
    /** Every diagnostic of the snippet as data: a failed compilation's errors and notes, or a value's warnings. */
    val diagnostics: List<Diagnostic> = emptyList(),
) {
    internal companion object {
        /** A snippet that compiled and whose value is [Unit]. */
        val UNIT: SnippetRun = SnippetRun(RunResult.Value(Unit))

        fun compilationError(message: String): SnippetRun = SnippetRun(RunResult.Error(RunPhase.COMPILATION, message))

        /** The compilation error of [fileName] made of [diagnostics], quoting the user's lines [shown]. */
        fun compilationError(fileName: String, shown: SourceText, diagnostics: List<Diagnostic>): SnippetRun = SnippetRun(
            RunResult.Error(RunPhase.COMPILATION, DiagnosticRenderer.render(fileName, shown, diagnostics)),
            diagnostics = diagnostics,
        )

        /** A snippet its host cancelled while it compiled: compiled, never run, and left behind like a failed one. */
        fun notRun(): SnippetRun {
            val interrupted = InterruptedException(NotRun.MESSAGE)
            return SnippetRun(RunResult.Error(RunPhase.EVALUATION, SnippetNames.header(interrupted)), interrupted, notRun = true)
        }
    }
}
