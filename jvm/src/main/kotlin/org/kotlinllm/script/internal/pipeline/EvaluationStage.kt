package org.kotlinllm.script.internal.pipeline

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.dependencies.SANDBOX_NETWORK_ENV
import org.kotlinllm.script.diagnostics.DiagnosticRenderer
import org.kotlinllm.script.internal.bytecode.ValueClasses
import org.kotlinllm.script.internal.compiler.Evaluation
import org.kotlinllm.script.internal.compiler.ReplCompilerHost
import org.kotlinllm.script.internal.compiler.source.ShadowingImports
import org.kotlinllm.script.internal.report.OutOfMemoryHint
import org.kotlinllm.script.internal.report.SandboxNetworkHint
import org.kotlinllm.script.internal.report.SnippetSources
import org.kotlinllm.script.internal.report.StackTraceRenderer
import org.kotlinllm.script.internal.routing.StopGate
import org.kotlinllm.script.internal.session.SessionSymbols
import java.io.File
import java.nio.file.Files

private val logger = KotlinLogging.logger {}

/** What evaluating a snippet gave: its [run], and its class when it ran to its end (what follows a value needs it). */
internal class Evaluated(val run: SnippetRun, val snippetClass: Class<*>?)

/**
 * Evaluates a compiled snippet on the session's thread, inside [stopGate] (the only code a host may stop the thread
 * in), records what it declared ([SessionSymbols], [ShadowingImports]; not for a hidden snippet) and renders its
 * value or what it threw: the snippets' frames ([StackTraceRenderer]), a hint when memory ran out, and its warnings.
 */
internal class EvaluationStage(
    private val compilerHost: ReplCompilerHost,
    private val symbols: SessionSymbols,
    private val sources: SnippetSources,
    private val stackTraces: StackTraceRenderer,
    private val shadowingImports: ShadowingImports,
    private val stopGate: StopGate,
) : AutoCloseable {
    private val inlineClassFiles = InlineClassFiles(compilerHost)

    /** The network mode of the kotlin-llm sandbox the session runs in (null outside one), for [SandboxNetworkHint]. */
    private val sandboxNetwork: String? = System.getenv(SANDBOX_NETWORK_ENV)

    fun evaluate(compiled: CompiledSnippet): Evaluated {
        val read = compiled.read
        val parsed = read.parsed
        val hidden = read.request.mode == Mode.HIDDEN
        sources.add(read.fileName, read.shown, compiled.compilation.classFiles)
        if (!hidden) symbols.evaluating(parsed, compilerHost.className(compiled.compilation), compilerHost::compiledDeclarations)
        val evaluation = compilerHost.evaluate(compiled.compilation, parsed.declaresAnything, stopGate)
        var snippetClass: Class<*>? = null
        if (evaluation !is Evaluation.Broken) {
            snippetClass = compilerHost.lastEvaluatedClass()
            if (!hidden) {
                symbols.declared(parsed, snippetClass)
                snippetClass?.let { shadowingImports.declared(parsed, it.name) }
            }
            if (parsed.declaresInline) inlineClassFiles.keep(read.fileName, compiled.compilation.classFiles)
            compilerHost.releaseClassFiles(compiled.compilation)
        }
        val ranToItsEnd = evaluation is Evaluation.Returned || evaluation == Evaluation.NoValue
        return Evaluated(runOf(compiled, evaluation), snippetClass.takeIf { ranToItsEnd })
    }

    private fun runOf(compiled: CompiledSnippet, evaluation: Evaluation): SnippetRun {
        val read = compiled.read
        val warnings = compiled.warnings.map { DiagnosticRenderer.render(read.fileName, read.shown, it) }
        val versions = compiled.source.resolved?.resolvedVersions.orEmpty()
        return when (evaluation) {
            is Evaluation.Returned -> SnippetRun(
                RunResult.Value(ValueClasses.box(evaluation.value, evaluation.type, evaluation.scriptClass), warnings, versions),
                diagnostics = compiled.warnings,
            )
            Evaluation.NoValue -> SnippetRun(RunResult.Value(Unit, warnings, versions), diagnostics = compiled.warnings)
            is Evaluation.Threw -> {
                val report = buildString {
                    append(stackTraces.render(evaluation.error))
                    OutOfMemoryHint.of(evaluation.error, symbols::values)?.let { append("\nhint: ").append(it) }
                    SandboxNetworkHint.of(evaluation.error, sandboxNetwork)?.let { append("\nhint: ").append(it) }
                    val notes = (compiled.source.versionNotes - read.magicNotes.toSet()).map {
                        DiagnosticRenderer.render(read.fileName, read.shown, it)
                    }
                    if (notes.isNotEmpty() || warnings.isNotEmpty()) append("\n\n").append((notes + warnings).joinToString("\n\n"))
                }
                SnippetRun(RunResult.Error(RunPhase.EVALUATION, report), evaluation.error, diagnostics = compiled.warnings)
            }
            is Evaluation.Broken -> SnippetRun(
                RunResult.Error(RunPhase.EVALUATION, "${read.fileName}: error: the snippet could not be run: ${evaluation.message}"),
            )
        }
    }

    override fun close() {
        inlineClassFiles.close()
    }
}

/** The class files of snippets declaring inline functions: later compilations can inline them only if they see them. */
internal class InlineClassFiles(private val compilerHost: ReplCompilerHost) : AutoCloseable {
    private var root: File? = null

    /** Writes [classFiles] of [fileName] to a directory that later compilations have on their classpath. */
    fun keep(fileName: String, classFiles: Map<String, ByteArray>) {
        val directory =
            File(root ?: Files.createTempDirectory("kotlin-llm-snippets").toFile().also { root = it }, fileName.removeSuffix(".kts"))
        for ((path, bytes) in classFiles) {
            if (!path.endsWith(".class")) continue
            val file = File(directory, path)
            file.parentFile.mkdirs()
            file.writeBytes(bytes)
        }
        compilerHost.addClasspath(listOf(directory))
        logger.debug { "kept the class files of $fileName for its inline declarations" }
    }

    override fun close() {
        root?.deleteRecursively()
    }
}
