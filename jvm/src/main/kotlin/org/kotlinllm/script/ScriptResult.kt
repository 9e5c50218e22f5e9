package org.kotlinllm.script

import org.kotlinllm.script.internal.pipeline.RunPhase
import org.kotlinllm.script.internal.pipeline.RunResult

/** The outcome of [ScriptSession.execute]: the value of the snippet, or an error written for an LLM to act on. */
public sealed interface ScriptResult {

    /**
     * A snippet that compiled and ran to its end.
     *
     * @property value the value of the snippet's last expression, or [Unit] if there is none.
     * @property warnings the compiler warnings of the snippet, each rendered like
     *   `snippet2.kts:1:5: warning: …` followed by its source line; joined by blank lines they read as a message.
     * @property resolvedVersions the versions chosen for the version-less `@file:DependsOn` coordinates of the snippet,
     *   like `mapOf("org.jsoup:jsoup" to "1.24.1")`.
     */
    public data class Value(
        val value: Any?,
        val warnings: List<String> = emptyList(),
        val resolvedVersions: Map<String, String> = emptyMap(),
    ) : ScriptResult

    /** A snippet that failed to compile, or threw; [message] is the rendered report. */
    public data class Error(
        val phase: ExecutionPhase,
        val message: String,
    ) : ScriptResult
}

/** Where a snippet failed. */
public enum class ExecutionPhase { COMPILATION, EVALUATION }

/** The engine's [result] as the spec shows it: the one mapping of the engine's results to the public ones. */
internal fun ScriptResult(result: RunResult): ScriptResult = when (result) {
    is RunResult.Value -> ScriptResult.Value(result.value, result.warnings, result.resolvedVersions)
    is RunResult.Error -> ScriptResult.Error(
        when (result.phase) {
            RunPhase.COMPILATION -> ExecutionPhase.COMPILATION
            RunPhase.EVALUATION -> ExecutionPhase.EVALUATION
        },
        result.message,
    )
}
