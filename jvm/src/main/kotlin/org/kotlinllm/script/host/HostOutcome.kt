package org.kotlinllm.script.host

import org.kotlinllm.script.ExecutionPhase
import org.kotlinllm.script.ScriptResult
import org.kotlinllm.script.dependencies.versions.LatestVersionRule
import org.kotlinllm.script.internal.pipeline.RunPhase
import org.kotlinllm.script.internal.pipeline.RunResult
import org.kotlinllm.script.internal.pipeline.SnippetRun
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.runtime.MimeBundle

/**
 * How a snippet ended, with the facts a host shows computed by the engine.
 *
 * @property snippetNumber the snippet's number, `N` of `snippetN.kts`: for [HostSession.check], the number it was
 *   checked as (the next snippet's).
 * @property result the spec's result, unchanged; [value], [warnings], [phase] and [message] give its parts.
 * @property cancelled whether its execution was cancelled before it settled.
 * @property isUnit a [ScriptResult.Value] whose value is [Unit].
 * @property valueText a value's `toString()` (`null` for null; a failing `toString()` is described); null for
 *   [Unit] and errors.
 * @property ename errors only: `CompilationError` for [ExecutionPhase.COMPILATION]; for [ExecutionPhase.EVALUATION]
 *   the exception's class as the report names it (`EvaluationError` when the engine could not run the snippet).
 * @property evalue errors only: the report's first line for [ExecutionPhase.COMPILATION] (and `EvaluationError`);
 *   the exception's message for [ExecutionPhase.EVALUATION] (empty when it has none).
 * @property resolvedDependencies a value's version-less `@file:DependsOn` dependencies, in order (an error's report
 *   names them itself).
 * @property valueData the value's MIME bundle, as [DisplayEvent.data]; its `text/plain` is [valueText]; empty for
 *   [Unit] and errors.
 * @property valueMetadata the metadata of [valueData] as JSON values, as [DisplayEvent.metadata] (empty when none).
 * @property notRun errors only: the snippet was cancelled while it compiled and never ran, which its [evalue] says in
 *   words; false for one cancelled before it started or while it ran. A host decides on this, not on the words.
 * @property diagnostics every diagnostic of the snippet as data, in the report's order: a failed compilation's
 *   errors and notes; the warnings of one that compiled.
 */
public class HostOutcome(
    public val snippetNumber: Int,
    public val result: ScriptResult,
    public val cancelled: Boolean,
    public val isUnit: Boolean,
    public val valueText: String?,
    public val ename: String?,
    public val evalue: String?,
    public val resolvedDependencies: List<ResolvedDependency>,
    public val valueData: Map<String, Any> = emptyMap(),
    public val valueMetadata: Map<String, Any?> = emptyMap(),
    public val notRun: Boolean = false,
    public val diagnostics: List<HostDiagnostic> = emptyList(),
) {
    /** A value's value; null for [Unit], for null and for errors. */
    public val value: Any? get() = (result as? ScriptResult.Value)?.value?.takeUnless { isUnit }

    /** A value's compiler warnings, rendered (see [ScriptResult.Value.warnings]); empty for errors. */
    public val warnings: List<String> get() = (result as? ScriptResult.Value)?.warnings.orEmpty()

    /** An error's phase; null for a value. */
    public val phase: ExecutionPhase? get() = (result as? ScriptResult.Error)?.phase

    /** An error's report, written for an LLM to act on; null for a value. */
    public val message: String? get() = (result as? ScriptResult.Error)?.message

    override fun toString(): String =
        if (result is ScriptResult.Error) "HostOutcome(${result.phase}, $ename: $evalue, cancelled=$cancelled)"
        else "HostOutcome(value=${if (isUnit) "Unit" else valueText?.take(80)}, cancelled=$cancelled)"

    internal companion object {
        const val COMPILATION_ERROR: String = "CompilationError"
        const val EVALUATION_ERROR: String = "EvaluationError"
        const val NOT_STARTED: String = "the snippet was cancelled before it started"

        /** The outcome of a snippet; [run] is null when it was cancelled before it started. Never throws. */
        fun of(
            snippetNumber: Int,
            run: SnippetRun?,
            cancelled: Boolean,
            maxDisplayBytes: Long = DisplayLimit.DEFAULT_MAX_BYTES,
        ): HostOutcome {
            val ran = run ?: notStarted()
            return when (val result = ScriptResult(ran.result)) {
                is ScriptResult.Value -> valueOutcome(snippetNumber, ran, result, cancelled, maxDisplayBytes)
                is ScriptResult.Error -> errorOutcome(snippetNumber, ran, result, cancelled)
            }
        }

        private fun valueOutcome(
            snippetNumber: Int,
            run: SnippetRun,
            result: ScriptResult.Value,
            cancelled: Boolean,
            maxDisplayBytes: Long,
        ): HostOutcome {
            val isUnit = result.value === Unit
            // the bundle's text/plain is the value's toString() unless its rendering gave one
            val bundle = if (isUnit) null else DisplayLimit.bound(
                run.valueBundle ?: MimeBundle(mapOf(MimeBundle.PLAIN to textOf(result.value))),
                maxDisplayBytes,
            )
            return HostOutcome(
                snippetNumber,
                result,
                cancelled,
                isUnit,
                valueText = bundle?.plain,
                ename = null,
                evalue = null,
                resolvedDependencies = result.resolvedVersions.map { (coordinates, version) ->
                    ResolvedDependency(coordinates, version, LatestVersionRule.isPreRelease(version))
                },
                valueData = bundle?.let(JsonText::dataOf).orEmpty(),
                valueMetadata = bundle?.jsonMetadata().orEmpty(),
                diagnostics = run.diagnostics.map(HostDiagnostic::of),
            )
        }

        private fun errorOutcome(snippetNumber: Int, run: SnippetRun, result: ScriptResult.Error, cancelled: Boolean): HostOutcome {
            val firstLine = result.message.substringBefore('\n')
            val thrown = run.thrown
            val (ename, evalue) = when {
                result.phase == ExecutionPhase.COMPILATION -> COMPILATION_ERROR to firstLine
                thrown != null -> runCatching { exceptionNames(thrown) }.getOrElse { EVALUATION_ERROR to firstLine }
                else -> EVALUATION_ERROR to firstLine
            }
            return HostOutcome(
                snippetNumber,
                result,
                cancelled,
                isUnit = false,
                valueText = null,
                ename,
                evalue,
                emptyList(),
                notRun = run.notRun,
                diagnostics = run.diagnostics.map(HostDiagnostic::of),
            )
        }

        private fun notStarted(): SnippetRun {
            val interrupted = InterruptedException(NOT_STARTED)
            return SnippetRun(RunResult.Error(RunPhase.EVALUATION, SnippetNames.header(interrupted)), interrupted)
        }

        /** The exception's class and message as the report's first line names them (a snippet's class as declared). */
        private fun exceptionNames(thrown: Throwable): Pair<String, String> =
            SnippetNames.className(thrown.javaClass.name) to (thrown.localizedMessage?.let(SnippetNames::clean) ?: "")

        private fun textOf(value: Any?): String = try {
            value.toString()
        } catch (e: Throwable) {
            // anything a snippet's class throws, a StackOverflowError or OutOfMemoryError too, is the snippet's failure
            val failure = runCatching { SnippetNames.header(e) }.getOrElse { e.javaClass.name }
            "<toString() of ${SnippetNames.className(value?.javaClass?.name.orEmpty())} failed: $failure>"
        }
    }
}

/** A version-less `@file:DependsOn` resolved to [version]; [preRelease] by the engine's own rule for choosing it. */
public class ResolvedDependency(
    public val coordinates: String,
    public val version: String,
    public val preRelease: Boolean,
) {
    override fun toString(): String = "$coordinates:$version${if (preRelease) " (pre-release)" else ""}"
}
