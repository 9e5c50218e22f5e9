package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.diagnostics.CompilerDiagnostics
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.DiagnosticRenderer
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.internal.compiler.Compilation
import org.kotlinllm.script.internal.compiler.ReplCompilerHost
import org.kotlinllm.script.internal.compiler.hints.DiagnosticHints
import org.kotlinllm.script.internal.report.KnownLimitations
import org.kotlinllm.script.internal.report.SnippetNames
import kotlin.script.experimental.api.ScriptDiagnostic

/**
 * Compiles the snippet ([RewritingCompiler], with its second attempts). A failure ends the snippet with its errors,
 * each with its fixes ([DiagnosticHints]) and in kotlinc's words ([CoroutinesNoise]), and what is known of the
 * compiler's limitations; a hidden snippet's failure is its first error only. A check ends here too ([checked]).
 */
internal class CompilationStage(
    private val compiler: RewritingCompiler,
    private val compilerHost: ReplCompilerHost,
    private val noise: CoroutinesNoise,
    private val hints: DiagnosticHints,
    private val limitations: KnownLimitations,
) {

    fun compile(source: ResolvedSnippet): Step<CompiledSnippet> {
        val read = source.read
        val classpath = source.resolved?.classpath.orEmpty()
        return when (val compilation = compiler.compile(read.fileName, read.parsed, classpath, source.imports)) {
            is Compilation.Crashed -> Step.Done(
                SnippetRun.compilationError(
                    read.fileName,
                    read.shown,
                    source.versionNotes + limitations.compilerCrash(compilation.cause, read.parsed),
                ),
            )
            is Compilation.Failed -> Step.Done(failed(source, compilation))
            is Compilation.Compiled -> Step.Next(CompiledSnippet(source, compilation, warnings(source, compilation)))
        }
    }

    /** The run of a check that compiled: the compilation forgotten, its warnings as a value's. */
    fun checked(compiled: CompiledSnippet): SnippetRun {
        compilerHost.discard(compiled.compilation)
        val read = compiled.read
        val rendered = compiled.warnings.map { DiagnosticRenderer.render(read.fileName, read.shown, it) }
        val versions = compiled.source.resolved?.resolvedVersions.orEmpty()
        return SnippetRun(RunResult.Value(Unit, rendered, versions), diagnostics = compiled.warnings)
    }

    private fun failed(source: ResolvedSnippet, compilation: Compilation.Failed): SnippetRun {
        val read = source.read
        val reported = CompilerReports.of(compilation.diagnostics, read.fileName)
        if (read.request.mode == Mode.HIDDEN) return SnippetRun.compilationError(read.fileName, read.shown, reported)
        val classpath = source.resolved?.classpath.orEmpty()
        val plain = noise.withoutNoise(reported, read.fileName, read.parsed, classpath, source.imports)
        val errors = hints.enrich(read.parsed, plain)
        return SnippetRun.compilationError(
            read.fileName,
            read.shown,
            source.versionNotes + limitations.compilationFailed(errors, read.shown),
        )
    }

    /** The warnings of a snippet that compiled: its `%use` notes, its dependencies' and the compiler's. */
    private fun warnings(source: ResolvedSnippet, compiled: Compilation.Compiled): List<Diagnostic> =
        (source.read.magicNotes + source.resolved?.warnings.orEmpty() + CompilerReports.of(compiled.diagnostics, source.read.fileName))
            .filter { it.severity == Severity.WARNING }
}

/** The compiler's reports of a snippet as the engine's diagnostics. */
internal object CompilerReports {

    /** Warnings and errors of [fileName] (or located in it), in source order: located, snippet classes named as declared. */
    fun of(reports: List<ScriptDiagnostic>, fileName: String): List<Diagnostic> =
        reports.asSequence()
            .filter { it.severity >= ScriptDiagnostic.Severity.WARNING }
            .filter { it.sourcePath == null || it.sourcePath == fileName || it.location != null }
            .map { report ->
                val range = report.location?.let {
                    val end = it.end
                    SourceRange(it.start.line, it.start.col, end?.line ?: it.start.line, end?.col ?: it.start.col)
                }
                val severity = if (report.severity == ScriptDiagnostic.Severity.WARNING) Severity.WARNING else Severity.ERROR
                val message = SnippetNames.clean(CompilerDiagnostics.text(report))
                Diagnostic(severity, message, range, name = CompilerDiagnostics.name(report))
            }
            .distinct()
            .sortedWith(compareBy({ it.range?.startLine ?: Int.MAX_VALUE }, { it.range?.startColumn ?: Int.MAX_VALUE }))
            .toList()
}
