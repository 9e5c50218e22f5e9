package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.dependencies.DependencySettings
import org.kotlinllm.script.dependencies.SessionDependencies
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.internal.compiler.CompilerPlugins
import org.kotlinllm.script.internal.compiler.ReplCompilerHost
import org.kotlinllm.script.internal.compiler.completion.CodeInsight
import org.kotlinllm.script.internal.compiler.completion.FirCompletion
import org.kotlinllm.script.internal.compiler.hints.DiagnosticHints
import org.kotlinllm.script.internal.compiler.hints.HostKotlinJars
import org.kotlinllm.script.internal.compiler.source.ShadowingImports
import org.kotlinllm.script.internal.compiler.source.SnippetParser
import org.kotlinllm.script.internal.report.KnownLimitations
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.internal.report.SnippetSources
import org.kotlinllm.script.internal.report.StackTraceRenderer
import org.kotlinllm.script.internal.routing.RunClock
import org.kotlinllm.script.internal.routing.StopGate
import org.kotlinllm.script.internal.session.SessionSymbols
import org.kotlinllm.script.runtime.MimeBundle

/** The session's side of a snippet's evaluation: it may start (false: its host cancelled it while it compiled), it ended. */
internal interface EvaluationWindow {
    fun starts(): Boolean

    fun ends()
}

/**
 * The way of every snippet of a session, on the session's thread, one after another, in named stages:
 * [MagicStage] (parse, `%use` and other magics), [ResolutionStage] (`@file:DependsOn`), [CompilationStage] (with its
 * retries and hints; a check stops here), [EvaluationStage], and what follows a value: [ColumnAccessors], whose
 * hidden snippets take the same way ([Mode.HIDDEN]), and the value's rendering. A stage ends a snippet by giving its
 * [SnippetRun] ([Step.Done]).
 */
internal class SnippetPipeline(
    hostClassLoader: ClassLoader,
    settings: DependencySettings,
    private val symbols: SessionSymbols,
    sources: SnippetSources,
    stackTraces: StackTraceRenderer,
    private val window: EvaluationWindow,
    /** The only code a host may stop the session's thread in: the evaluations. */
    stopGate: StopGate,
    /** Leaves out of the snippet's run time what it waits for: its dependencies to resolve. */
    clock: RunClock,
    /** The bundle of a value, for a host that shows rich output; null: values are not rendered. */
    private val renderValue: ((Any?) -> MimeBundle?)?,
) : AutoCloseable {

    private val compilerHost = ReplCompilerHost(hostClassLoader)
    private val dependencies = SessionDependencies(settings, hostClassLoader)
    private val libraries = SessionLibraries(dependencies, compilerHost, clock)

    /** Completion and inspection by the compiler's analysis of the session's snippets. */
    val insight: CodeInsight = CodeInsight(compilerHost)

    private val magics = MagicStage(SnippetParser(compilerHost.project), libraries)
    private val resolution = ResolutionStage(dependencies, libraries, clock)
    private val compilation: CompilationStage
    private val evaluation: EvaluationStage
    private val accessors = ColumnAccessors(symbols) { fileName, code, imports ->
        hidden(SnippetRequest(fileName, code, Mode.HIDDEN, imports))
    }

    init {
        val shadowingImports = ShadowingImports()
        val compiler = RewritingCompiler(compilerHost, shadowingImports)
        val hints = DiagnosticHints(
            hostJars = HostKotlinJars.of(hostClassLoader),
            dependencyJars = { dependencies.loadedJars },
            namesAt = { before, prefix ->
                insight.complete(before + prefix + FirCompletion.MARKER, prefix, HINT_WAIT_MILLIS)?.filter {
                    it.kind != "keyword"
                }?.map { it.text }
            },
        )
        val limitations = KnownLimitations(serializationPlugin = CompilerPlugins.jars.any { "serialization" in it.name })
        compilation = CompilationStage(compiler, compilerHost, CoroutinesNoise(compiler, compilerHost), hints, limitations)
        evaluation = EvaluationStage(compilerHost, symbols, sources, stackTraces, shadowingImports, stopGate)
    }

    /** Compiles and evaluates [text] as the snippet [fileName]. */
    fun run(fileName: String, text: String): SnippetRun {
        val compiled = compiled(SnippetRequest(fileName, text, Mode.RUN)).orDone { return it }
        if (!window.starts()) {
            compilerHost.discard(compiled.compilation)
            return SnippetRun.notRun()
        }
        val evaluated = try {
            compiled.source.resolved?.commit?.invoke()
            libraries.loaded(compiled.read.used)
            evaluation.evaluate(compiled).also { evaluated ->
                // the next snippets see the column accessors of the frames this one declared or changed
                evaluated.snippetClass?.let { accessors.after(fileName, compiled.read.parsed, it) }
            }
        } finally {
            window.ends()
        }
        return rendered(evaluated.run)
    }

    /**
     * Compiles [text] as [run] would, resolving its dependencies, and reports what [run] would report of its
     * compilation (its errors, or a [RunResult.Value] of [Unit] with the warnings), without evaluating it or
     * changing the session: nothing is declared, no library or `%use` import is added, and the compiler forgets it.
     */
    fun check(fileName: String, text: String): SnippetRun =
        compilation.checked(compiled(SnippetRequest(fileName, text, Mode.CHECK)).orDone { return it })

    /** The stages up to the compilation. */
    private fun compiled(request: SnippetRequest): Step<CompiledSnippet> {
        val read = magics.read(request).orDone { return Step.Done(it) }
        val resolved = resolution.resolve(read).orDone { return Step.Done(it) }
        return compilation.compile(resolved)
    }

    /** A hidden snippet, within the evaluation of the snippet it follows; no library of it is loaded, nothing rendered. */
    private fun hidden(request: SnippetRequest): HiddenRun {
        val compiled = compiled(request).orDone { return HiddenRun(null, failure(it)) }
        compiled.source.resolved?.commit?.invoke()
        val evaluated = evaluation.evaluate(compiled)
        return HiddenRun(evaluated.snippetClass, if (evaluated.snippetClass == null) failure(evaluated.run) else null)
    }

    /** Why a hidden snippet's [run] did not run to its end, in the words of the report about its library's code. */
    private fun failure(run: SnippetRun): String {
        val error = run.result as? RunResult.Error ?: return "their code gave no class"
        val thrown = run.thrown
        val firstError = run.diagnostics.firstOrNull { it.severity == Severity.ERROR }?.message
        return when {
            error.phase == RunPhase.COMPILATION -> "their code does not compile: ${firstError ?: error.message.lines().first()}"
            thrown != null -> "their code threw ${SnippetNames.header(thrown)}"
            else -> "their code could not be run: ${error.message.substringAfter("could not be run: ")}"
        }
    }

    /** [run] with the bundle of its value, when it has one (not for Unit and errors); never throws. */
    private fun rendered(run: SnippetRun): SnippetRun {
        val render = renderValue ?: return run
        val result = run.result as? RunResult.Value ?: return run
        return render(result.value)?.let { run.copy(valueBundle = it) } ?: run
    }

    override fun close() {
        dependencies.close()
        compilerHost.close()
        evaluation.close()
    }

    private companion object {
        /** How long a hint waits for the compiler's lock (held by a completion) before going without names. */
        const val HINT_WAIT_MILLIS = 2_000L
    }
}
