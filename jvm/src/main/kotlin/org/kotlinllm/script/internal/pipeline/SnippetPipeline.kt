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
import org.kotlinllm.script.internal.libraries.Libraries
import org.kotlinllm.script.internal.magics.SessionMagics
import org.kotlinllm.script.internal.report.KnownLimitations
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.internal.report.SnippetSources
import org.kotlinllm.script.internal.report.StackTraceRenderer
import org.kotlinllm.script.internal.routing.RunClock
import org.kotlinllm.script.internal.routing.StopGate
import org.kotlinllm.script.internal.session.SessionSymbols
import org.kotlinllm.script.runtime.MimeBundle
import java.io.File

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
) : AutoCloseable, HostCode {

    private val compilerHost = ReplCompilerHost(hostClassLoader)
    private val dependencies = SessionDependencies(settings, hostClassLoader)
    private val libraries = SessionLibraries(dependencies, compilerHost, clock)

    /** Completion and inspection by the compiler's analysis of the session's snippets. */
    val insight: CodeInsight = CodeInsight(compilerHost)

    private val sessionMagics = SessionMagics({ dependencies.loadedJars }, symbols)
    private val magics = MagicStage(SnippetParser(compilerHost.project), libraries, sessionMagics)
    private val resolution = ResolutionStage(dependencies, libraries, clock)
    private val compilation: CompilationStage
    private val evaluation: EvaluationStage
    private val accessors = ColumnAccessors(symbols, ::hiddenName) { fileName, code, imports ->
        hidden(SnippetRequest(fileName, code, Mode.HIDDEN, imports))
    }

    /** What a cell passes through besides the stages: JetBrains' kernel API, once attached. */
    var hooks: CellHooks = CellHooks.None

    /** The hidden and executed snippets numbered after each cell so far (`snippet5_1.kts`, `snippet5_2.kts`…). */
    private val hiddenCounts = HashMap<String, Int>()

    override var cellFileName: String = "snippet0.kts"
        private set

    /** A cell's own code is being evaluated: code run for the host then would nest evaluations. */
    @Volatile
    private var inCellEvaluation = false

    override val inCellCode: Boolean get() = inCellEvaluation
    private var sessionThread: Thread? = null

    /** The jars committed since [takeAddedJars] was last called. */
    private val addedJars = mutableListOf<File>()

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
        cellFileName = fileName
        sessionThread = Thread.currentThread()
        val code = try {
            hooks.preprocess(fileName, text).also { hooks.beforeCell(fileName, text, it) }
        } catch (e: HookFailure) {
            return SnippetRun(RunResult.Error(RunPhase.COMPILATION, "$fileName: error: ${e.message}"), e.cause)
        }
        val compiled = compiled(SnippetRequest(fileName, code, Mode.RUN)).orDone { return it }
        if (!window.starts()) {
            compilerHost.discard(compiled.compilation)
            return SnippetRun.notRun()
        }
        val run = try {
            val evaluated = evaluated(compiled)
            hooks.afterCell(EvaluatedCell(fileName, text, code, compiled.read.parsed, evaluated.snippetClass, evaluated.run))
        } finally {
            window.ends()
        }
        return rendered(run)
    }

    /** Evaluates a cell's [compiled] snippet, and the column accessors of the frames it declared or changed. */
    private fun evaluated(compiled: CompiledSnippet): Evaluated {
        committed(compiled)
        libraries.loaded(compiled.read.used)
        inCellEvaluation = true
        val evaluated = try {
            evaluation.evaluate(compiled)
        } finally {
            inCellEvaluation = false
        }
        // the next snippets see the column accessors of the frames this one declared or changed
        evaluated.snippetClass?.let { accessors.after(compiled.read.fileName, compiled.read.parsed, it) }
        return evaluated
    }

    override fun execute(code: String): SnippetRun {
        check(Thread.currentThread() === sessionThread) { "the host runs code on the session's thread only" }
        check(!inCellEvaluation) {
            "the host cannot run code while a cell's own code runs; EXECUTE(code) runs it once the cell's code ran"
        }
        val compiled = compiled(SnippetRequest(hiddenName(cellFileName), code, Mode.EXECUTE)).orDone { return it }
        committed(compiled)
        libraries.loaded(compiled.read.used)
        val evaluated = evaluation.evaluate(compiled)
        evaluated.snippetClass?.let { accessors.after(compiled.read.fileName, compiled.read.parsed, it) }
        return evaluated.run
    }

    /** Commits the dependencies [compiled] resolved: the session has their jars from now on. */
    private fun committed(compiled: CompiledSnippet) {
        val resolved = compiled.source.resolved
        resolved?.commit?.invoke()
        resolved?.let { addedJars += it.classpath }
        // after the commit: the magics count the session's jars with the new ones
        sessionMagics.evaluating(compiled.compilation.classFiles, resolved?.classpath.orEmpty())
    }

    override fun integrationOptions(producer: String): Map<String, String> =
        Libraries.withProducer(producer)?.let { libraries.optionsOf(it.name) }.orEmpty()

    override fun takeAddedJars(): List<File> = addedJars.toList().also { addedJars.clear() }

    override fun addImports(imports: Collection<String>) {
        libraries.addImports(imports)
    }

    override val classLoader: ClassLoader get() = compilerHost.classLoader

    /** The next name of a snippet the engine runs after the cell [fileName]. */
    private fun hiddenName(fileName: String): String {
        val base = fileName.removeSuffix(".kts")
        val count = hiddenCounts.merge(base, 1, Int::plus) ?: 1
        return "${base}_$count.kts"
    }

    /**
     * Compiles [text] as [run] would, resolving its dependencies, and reports what [run] would report of its
     * compilation (its errors, or a [RunResult.Value] of [Unit] with the warnings), without evaluating it or
     * changing the session: nothing is declared, no library or `%use` import is added, and the compiler forgets it.
     */
    fun check(fileName: String, text: String): SnippetRun {
        val code = try {
            hooks.preprocess(fileName, text)
        } catch (e: HookFailure) {
            return SnippetRun.compilationError("$fileName: error: ${e.message}")
        }
        return compilation.checked(compiled(SnippetRequest(fileName, code, Mode.CHECK)).orDone { return it })
    }

    /** The stages up to the compilation. */
    private fun compiled(request: SnippetRequest): Step<CompiledSnippet> {
        val read = magics.read(request).orDone { return Step.Done(it) }
        if (request.mode == Mode.RUN || request.mode == Mode.EXECUTE) {
            val errors = hooks.loadDescriptors(read)
            if (errors.isNotEmpty()) return Step.Done(SnippetRun.compilationError(read.fileName, read.shown, errors))
        }
        val resolved = resolution.resolve(read).orDone { return Step.Done(it) }
        return compilation.compile(resolved)
    }

    /** A hidden snippet, within the evaluation of the snippet it follows; no library of it is loaded, nothing rendered. */
    private fun hidden(request: SnippetRequest): HiddenRun {
        val compiled = compiled(request).orDone { return HiddenRun(null, failure(it)) }
        committed(compiled)
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
        sessionMagics.close()
        dependencies.close()
        compilerHost.close()
        evaluation.close()
    }

    private companion object {
        /** How long a hint waits for the compiler's lock (held by a completion) before going without names. */
        const val HINT_WAIT_MILLIS = 2_000L
    }
}
