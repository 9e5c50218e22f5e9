package org.kotlinllm.script

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.dependencies.DeclaredAnnotations
import org.kotlinllm.script.dependencies.DependencyResolution
import org.kotlinllm.script.dependencies.SessionDependencies
import org.kotlinllm.script.dependencies.model.Messages
import org.kotlinllm.script.dependencies.versions.LatestVersionRule
import org.kotlinllm.script.diagnostics.CompilerDiagnostics
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.DiagnosticRenderer
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.diagnostics.SourceText
import org.kotlinllm.script.internal.bytecode.ValueClasses
import org.kotlinllm.script.internal.compiler.Compilation
import org.kotlinllm.script.internal.compiler.CompilerPlugins
import org.kotlinllm.script.internal.compiler.Evaluation
import org.kotlinllm.script.internal.compiler.ReplCompilerHost
import org.kotlinllm.script.internal.compiler.completion.Candidate
import org.kotlinllm.script.internal.compiler.completion.CodeInsight
import org.kotlinllm.script.internal.compiler.completion.FirCompletion
import org.kotlinllm.script.internal.compiler.completion.Inspected
import org.kotlinllm.script.internal.compiler.hints.DiagnosticHints
import org.kotlinllm.script.internal.compiler.hints.HostKotlinJars
import org.kotlinllm.script.internal.compiler.source.DependencyAnnotations
import org.kotlinllm.script.internal.compiler.source.FrameAssignments
import org.kotlinllm.script.internal.compiler.source.InternalModifiers
import org.kotlinllm.script.internal.compiler.source.NotebookMagics
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet
import org.kotlinllm.script.internal.compiler.source.SecondAttempt
import org.kotlinllm.script.internal.compiler.source.ShadowingImports
import org.kotlinllm.script.internal.compiler.source.SnippetParser
import org.kotlinllm.script.internal.compiler.source.SnippetRewrite
import org.kotlinllm.script.internal.compiler.source.SuspendingStatements
import org.kotlinllm.script.internal.compiler.source.TopLevelCompanions
import org.kotlinllm.script.internal.compiler.source.UseMagic
import org.kotlinllm.script.internal.report.KnownLimitations
import org.kotlinllm.script.internal.report.OutOfMemoryHint
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.internal.report.SnippetSources
import org.kotlinllm.script.internal.report.StackTraceRenderer
import org.kotlinllm.script.internal.routing.RunClock
import org.kotlinllm.script.internal.routing.StopGate
import org.kotlinllm.script.internal.session.LibraryAccessors
import org.kotlinllm.script.internal.session.SessionSymbols
import java.io.File
import java.nio.file.Files
import kotlin.script.experimental.api.ScriptDiagnostic
import kotlin.script.experimental.api.SourceCode
import kotlin.script.experimental.host.toScriptSource

private val logger = KotlinLogging.logger {}

/**
 * What running one snippet gave: the spec's [result], the exception behind an EVALUATION error it threw, for a
 * host that shows rich output the [valueBundle] of its value, and whether it was [notRun]: cancelled while it compiled.
 */
internal data class SnippetRun(
    val result: ScriptResult,
    val thrown: Throwable? = null,
    val valueBundle: org.kotlinllm.script.runtime.MimeBundle? = null,
    val notRun: Boolean = false,
    /** Every diagnostic of the snippet as data: a failed compilation's errors and notes, or a value's warnings. */
    val diagnostics: List<Diagnostic> = emptyList(),
)

/**
 * Compiles and evaluates the snippets of one session, one after another, on the session's thread: parse first,
 * then compile (rolling back a failure), then evaluate, and render what went wrong for an LLM to read. Records what
 * the snippets declare in [symbols].
 */
internal class SnippetRunner(
    hostClassLoader: ClassLoader,
    configuration: SessionConfiguration,
    private val symbols: SessionSymbols,
    /** Called before a compiled snippet is evaluated: false when it must not run (its host cancelled it meanwhile). */
    private val beforeEvaluation: () -> Boolean,
    private val afterEvaluation: () -> Unit,
    /** The only code a host may stop the session's thread in: the evaluations. */
    private val stopGate: StopGate = StopGate(),
    /** Leaves out of the snippet's run time what it waits for: its dependencies to resolve. */
    private val clock: RunClock = RunClock(),
) : AutoCloseable {

    private val compilerHost = ReplCompilerHost(hostClassLoader)
    private val dependencies = SessionDependencies(configuration.dependencySettings(), hostClassLoader)
    private val parser = SnippetParser(compilerHost.project)
    private val insight = CodeInsight(compilerHost)
    private val sources = SnippetSources()
    private val stackTraces = StackTraceRenderer(sources)
    private val limitations = KnownLimitations(serializationPlugin = CompilerPlugins.jars.any { "serialization" in it.name })
    private val shadowingImports = ShadowingImports()
    private val accessors = LibraryAccessors(compilerHost, symbols)
    private val hints = DiagnosticHints(
        hostJars = HostKotlinJars.of(hostClassLoader),
        dependencyJars = { dependencies.loadedJars },
        namesAt = { before, prefix ->
            insight.complete(before + prefix + FirCompletion.MARKER, prefix, HINT_WAIT_MILLIS)?.filter {
                it.kind != "keyword"
            }?.map { it.text }
        },
    )

    /** The default imports of the libraries that `%use` loaded: every later snippet has them. */
    private val libraryImports = linkedSetOf<String>()

    /** Rewrites tried in turn when a snippet's first compilation fails. */
    private val secondAttempts: List<SecondAttempt> = listOf(SuspendingStatements, TopLevelCompanions, FrameAssignments)
    private var classDirectories: File? = null

    /** [frame] of a snippet as `snippetN.kts:line`, a line of inlined code mapped to the line that called it. */
    fun locate(frame: StackTraceElement): String = "${frame.fileName}:${sources.snippetLine(frame.className, frame.lineNumber)}"

    /** [error], thrown outside an evaluation (by a thread or a coroutine a snippet started), rendered like the errors of snippets. */
    fun render(error: Throwable): String = stackTraces.render(error)

    /** The top [limit] of a running thread's [frames], a snippet's named as in its errors; called on any thread. */
    fun topFrames(frames: Array<StackTraceElement>, limit: Int): List<String> = stackTraces.topFrames(frames, limit)

    /** The snippet frames of [stack] rendered as [render] shows them, without a header; called on any thread. */
    fun renderFrames(stack: List<StackTraceElement>): String = stackTraces.renderFrames(stack)

    /** Whether [element] is a frame of the snippets' code; called on any thread. */
    fun isSnippetFrame(element: StackTraceElement): Boolean = stackTraces.isSnippetFrame(element)

    /** Whether [error] went through code of the snippets; called on any thread. */
    fun hasSnippetFrames(error: Throwable): Boolean = stackTraces.hasSnippetFrames(error)

    /** Completions by the K2 frontend (see [CodeInsight.complete]); called on any thread. */
    fun complete(text: String, prefix: String, waitMillis: Long): List<Candidate>? = insight.complete(text, prefix, waitMillis)

    /** Reads what the first completions need, while the session idles (see [CodeInsight.warmUp]). */
    fun warmUpCompletion(yieldWhen: () -> Boolean): Boolean? = insight.warmUp(yieldWhen)

    /** Inspection by the K2 frontend (see [CodeInsight.inspect]); called on any thread. */
    fun inspect(text: String, offset: Int, waitMillis: Long): Inspected? = insight.inspect(text, offset, waitMillis)

    /**
     * Compiles [text] as [run] would, resolving its dependencies, and reports what [run] would report of its
     * compilation (its errors, or a [ScriptResult.Value] of [Unit] with the warnings), without evaluating it or
     * changing the session: nothing is declared, no library or `%use` import is added, and the compiler forgets it.
     */
    fun check(fileName: String, text: String): SnippetRun = run(fileName, text, checkOnly = true)

    fun run(fileName: String, text: String): SnippetRun = run(fileName, text, checkOnly = false)

    private fun run(fileName: String, text: String, checkOnly: Boolean): SnippetRun {
        // kotlinc reads a source with its line separators converted to \n; the K2 PSI rejects a \r
        val code = text.replace("\r\n", "\n").replace('\r', '\n')
        val original = parser.parse(fileName, code)
        // the %use lines load libraries; the rest is compiled with those lines blanked, so every offset stays
        val used = UseMagic.read(original)
        val parsed = if (used == null) original else parser.parse(fileName, used.code)
        val shown = original.source // what diagnostics quote: the user's lines
        val magicNotes = used?.diagnostics.orEmpty()
        val useErrors = magicNotes.filter { it.severity == Severity.ERROR }
        val otherMagics = NotebookMagics.diagnostics(parsed)
        if (useErrors.isNotEmpty() || otherMagics.isNotEmpty()) {
            val loaded = if (checkOnly || used == null || otherMagics.isNotEmpty()) emptyList() else loadAlone(used, useErrors, shown)
            return compilationError(fileName, shown, useErrors + otherMagics + loaded)
        }
        if (parsed.syntaxErrors.isNotEmpty()) {
            return compilationError(fileName, shown, parsed.syntaxErrors)
        }
        val declared = DependencyAnnotations.read(parsed.file).let { read ->
            if (used == null) read else DeclaredAnnotations(used.dependencies + read.dependencies, read.repositories, read.problems)
        }
        val resolution = try {
            clock.waiting { dependencies.resolve(declared) }
        } catch (_: InterruptedException) {
            return compilationError("$fileName: error: resolving the dependencies was cancelled")
        }
        val resolved = when (resolution) {
            is DependencyResolution.Failed -> {
                val errors = resolution.diagnostics.filter { it.severity == Severity.ERROR }
                val loaded = if (checkOnly || used == null) emptyList() else loadAlone(used, errors, shown)
                return compilationError(fileName, shown, resolution.diagnostics + loaded)
            }
            is DependencyResolution.Resolved -> resolution
            DependencyResolution.None -> null
        }
        val usedRanges = used?.dependencies.orEmpty().associate { it.value to it.range }
        val versionNotes = magicNotes + resolved?.let { versionNotes(it.resolvedVersions, shown, usedRanges) }.orEmpty()
        val imports = libraryImports + used?.imports.orEmpty()
        return when (val compilation = compile(fileName, parsed, resolved?.classpath.orEmpty(), imports)) {
            is Compilation.Crashed -> compilationError(fileName, shown, versionNotes + limitations.compilerCrash(compilation.cause, parsed))
            is Compilation.Failed -> {
                val reported = diagnostics(compilation.diagnostics, fileName)
                val errors = hints.enrich(
                    parsed,
                    withoutCoroutinesInvoke(reported, fileName, parsed, resolved?.classpath.orEmpty(), imports),
                )
                compilationError(fileName, shown, versionNotes + limitations.compilationFailed(errors, shown))
            }
            is Compilation.Compiled -> {
                if (checkOnly) {
                    compilerHost.discard(compilation)
                    val warnings = warnings(fileName, compilation, resolved, magicNotes)
                    val rendered = warnings.map { DiagnosticRenderer.render(fileName, shown, it) }
                    return SnippetRun(ScriptResult.Value(Unit, rendered, resolved?.resolvedVersions.orEmpty()), diagnostics = warnings)
                }
                if (!beforeEvaluation()) {
                    compilerHost.discard(compilation)
                    return notRun()
                }
                try {
                    resolved?.commit?.invoke()
                    used?.let { libraryImports += it.imports }
                    evaluate(fileName, parsed, shown, compilation, resolved, versionNotes, magicNotes)
                } finally {
                    afterEvaluation()
                }
            }
        }
    }

    /**
     * Loads the libraries of a failing snippet's `%use` lines that are not at one of its [errors], as a snippet that
     * compiled would (their jars, versions and default imports stay for the later snippets), so that one unknown or
     * unresolvable library of a line does not hold back the others; nothing else of the snippet runs. The notes to
     * show with the errors: the versions chosen and what loaded.
     */
    private fun loadAlone(used: UseMagic.Used, errors: List<Diagnostic>, shown: SourceText): List<Diagnostic> {
        val failed = errors.mapNotNull { it.range }.toSet()
        val loadable = used.libraries.filter { it.range !in failed }
        if (loadable.isEmpty()) return emptyList()
        val declared = DeclaredAnnotations(loadable.flatMap { it.dependencies }, emptyList(), emptyList())
        val resolution = try {
            clock.waiting { dependencies.resolve(declared) }
        } catch (_: InterruptedException) {
            return emptyList()
        }
        val notes = when (resolution) {
            is DependencyResolution.Failed -> return emptyList() // each failed with the others already, and said so
            is DependencyResolution.Resolved -> {
                resolution.commit()
                compilerHost.addLibraries(resolution.classpath)
                val ranges = loadable.flatMap { library -> library.dependencies.map { it.value to library.range } }.toMap()
                versionNotes(resolution.resolvedVersions, shown, ranges) + resolution.warnings
            }
            DependencyResolution.None -> emptyList()
        }
        libraryImports += loadable.flatMap { it.imports }
        val loaded = Diagnostic(Severity.WARNING, UseMagic.loadedAlone(loadable.map { it.name }), loadable.first().range)
        return notes + loaded
    }

    /**
     * Compiles the snippet, its `internal` modifiers commented out ([InternalModifiers]); when that fails on a
     * compiler limitation that one of [secondAttempts] avoids, compiles its rewrite instead. The diagnostics of both
     * are located in the user's text. The failed first compilation leaves nothing behind, and the snippet keeps its
     * file name.
     */
    private fun compile(fileName: String, parsed: ParsedSnippet, classpath: List<File>, libraries: Collection<String>): Compilation {
        val imports = shadowingImports.imports(parsed) + libraries
        val without = shadowingImports.hiddenImports(parsed)
        val public = InternalModifiers.insertions(parsed) + shadowingImports.hidingInsertions(parsed)
        val first = compile(SnippetRewrite(parsed.source, public), fileName, classpath, imports, without)
        if (first !is Compilation.Failed) return first
        val rewrite = secondAttempts.firstNotNullOfOrNull { it.rewrite(parsed, first.diagnostics) }?.with(public) ?: return first
        logger.debug { "compiling $fileName again, rewritten" }
        return when (val second = compile(rewrite, fileName, classpath, imports, without)) {
            is Compilation.Compiled -> second
            is Compilation.Failed -> Compilation.Failed(rewrite.failed(first.diagnostics, second.diagnostics))
            is Compilation.Crashed -> first
        }
    }

    /**
     * [reported] with kotlinc's own words where the default import `kotlinx.coroutines.*` changed them: calling what
     * is no function (`s.length()`) makes the compiler try the coroutines' `CoroutineDispatcher.invoke`, a missing
     * `plus` their `CoroutineScope.plus`, and report that inapplicable candidate (and an uninferred `T`) instead of
     * "cannot be invoked as a function" or the unresolved member, which the hints then explain. Those errors are
     * replaced by kotlinc's where the snippet, compiled again without the import (failing again, leaving nothing),
     * reports them at the same places.
     */
    private fun withoutCoroutinesInvoke(
        reported: List<Diagnostic>,
        fileName: String,
        parsed: ParsedSnippet,
        classpath: List<File>,
        libraries: Collection<String>,
    ): List<Diagnostic> {
        val noisy = reported.filter { diagnostic -> diagnostic.name == WRONG_RECEIVER && COROUTINES.any { it in diagnostic.message } }
            .mapNotNull { it.range }.toSet()
        if (noisy.isEmpty()) return reported
        val imports = shadowingImports.imports(parsed) + libraries
        val rewrite = SnippetRewrite(parsed.source, InternalModifiers.insertions(parsed) + shadowingImports.hidingInsertions(parsed))
        val without = shadowingImports.hiddenImports(parsed) + COROUTINES_IMPORT
        val again = compile(rewrite, fileName, classpath, imports, withoutImports = without)
        if (again is Compilation.Compiled) compilerHost.discard(again)
        if (again !is Compilation.Failed) return reported
        // "cannot be invoked as a function", or a member that is not there; not an unresolved name without a receiver:
        // the REPL reports a property of the same snippet called as a function (`val n = 5; n()`) so, which would
        // mislead more than the noise
        val plain = diagnostics(again.diagnostics, fileName).filter {
            it.range in noisy && (it.name == FUNCTION_EXPECTED || (it.name == UNRESOLVED && ON_RECEIVER in it.message))
        }
        if (plain.isEmpty()) return reported
        val first = reported.indexOfFirst { it.range in noisy }
        val kept = reported.filterNot { it.severity == Severity.ERROR && it.range in noisy }
        return kept.take(first) + plain + kept.drop(first)
    }

    /** Compiles [rewrite]'s text, its diagnostics located in the user's text. */
    private fun compile(
        rewrite: SnippetRewrite,
        fileName: String,
        classpath: List<File>,
        imports: List<String>,
        withoutImports: List<String> = emptyList(),
    ): Compilation =
        when (val compiled = compilerHost.compile(rewrite.text.toScriptSource(fileName), classpath, imports, withoutImports)) {
            is Compilation.Compiled -> Compilation.Compiled(
                compiled.snippet,
                rewrite.mapBack(compiled.diagnostics),
                compiled.classFiles,
                compiled.classpath,
            )
            is Compilation.Failed -> Compilation.Failed(rewrite.mapBack(compiled.diagnostics))
            is Compilation.Crashed -> compiled
        }

    private fun compilationError(message: String) = SnippetRun(ScriptResult.Error(ExecutionPhase.COMPILATION, message))

    private fun compilationError(fileName: String, shown: SourceText, diagnostics: List<Diagnostic>) = SnippetRun(
        ScriptResult.Error(ExecutionPhase.COMPILATION, DiagnosticRenderer.render(fileName, shown, diagnostics)),
        diagnostics = diagnostics,
    )

    /** The warnings of a snippet that compiled: its `%use` notes, its dependencies' and the compiler's. */
    private fun warnings(
        fileName: String,
        compiled: Compilation.Compiled,
        resolved: DependencyResolution.Resolved?,
        magicNotes: List<Diagnostic>,
    ): List<Diagnostic> = (magicNotes + resolved?.warnings.orEmpty() + diagnostics(compiled.diagnostics, fileName))
        .filter { it.severity == Severity.WARNING }

    /** A snippet its host cancelled while it compiled: compiled, never run, and left behind like a failed one. */
    private fun notRun(): SnippetRun {
        val interrupted = InterruptedException(NOT_RUN)
        return SnippetRun(ScriptResult.Error(ExecutionPhase.EVALUATION, SnippetNames.header(interrupted)), interrupted, notRun = true)
    }

    /**
     * "Resolved 'g:a' to …" at the `@file:DependsOn` naming it: a failed snippet tells the versions it chose, as the
     * LLM might not know their API.
     */
    private fun versionNotes(versions: Map<String, String>, source: SourceText, used: Map<String, SourceRange>): List<Diagnostic> =
        versions.map { (coordinates, version) ->
            val at = source.text.indexOf("\"$coordinates\"")
            val range = used[coordinates] ?: if (at < 0) null else source.range(at, at + coordinates.length + 2)
            Diagnostic(Severity.WARNING, Messages.latestVersion(coordinates, version, LatestVersionRule.isPreRelease(version)), range)
        }

    private fun evaluate(
        fileName: String,
        parsed: ParsedSnippet,
        shown: SourceText,
        compiled: Compilation.Compiled,
        resolved: DependencyResolution.Resolved?,
        versionNotes: List<Diagnostic>,
        magicNotes: List<Diagnostic>,
    ): SnippetRun {
        sources.add(fileName, shown, compiled.classFiles)
        val warningNotes = warnings(fileName, compiled, resolved, magicNotes)
        val warnings = warningNotes.map { DiagnosticRenderer.render(fileName, shown, it) }
        val resolvedVersions = resolved?.resolvedVersions.orEmpty()
        symbols.evaluating(parsed, compilerHost.className(compiled), compilerHost::compiledDeclarations)
        val evaluation = compilerHost.evaluate(compiled, parsed.declaresAnything, stopGate)
        if (evaluation !is Evaluation.Broken) {
            val snippetClass = compilerHost.lastEvaluatedClass()
            symbols.declared(parsed, snippetClass)
            snippetClass?.let { shadowingImports.declared(parsed, it.name) }
            if (parsed.declaresInline) keepClassFiles(fileName, compiled.classFiles)
            compilerHost.releaseClassFiles(compiled)
            // the next snippets see the column accessors of the frames this one declared or changed
            if (evaluation !is Evaluation.Threw && snippetClass != null) accessors.after(fileName, parsed, snippetClass)
        }
        return when (evaluation) {
            is Evaluation.Returned -> SnippetRun(
                ScriptResult.Value(ValueClasses.box(evaluation.value, evaluation.type, evaluation.scriptClass), warnings, resolvedVersions),
                diagnostics = warningNotes,
            )
            Evaluation.NoValue -> SnippetRun(ScriptResult.Value(Unit, warnings, resolvedVersions), diagnostics = warningNotes)
            is Evaluation.Threw -> {
                val report = buildString {
                    append(stackTraces.render(evaluation.error))
                    OutOfMemoryHint.of(evaluation.error, symbols::values)?.let { append("\nhint: ").append(it) }
                    val notes = (versionNotes - magicNotes.toSet()).map { DiagnosticRenderer.render(fileName, shown, it) }
                    if (notes.isNotEmpty() || warnings.isNotEmpty()) append("\n\n").append((notes + warnings).joinToString("\n\n"))
                }
                SnippetRun(ScriptResult.Error(ExecutionPhase.EVALUATION, report), evaluation.error, diagnostics = warningNotes)
            }
            is Evaluation.Broken -> SnippetRun(
                ScriptResult.Error(ExecutionPhase.EVALUATION, "$fileName: error: the snippet could not be run: ${evaluation.message}"),
            )
        }
    }

    /** The compiler's diagnostics of this snippet as ours: located, snippet classes named as declared. */
    private fun diagnostics(reports: List<ScriptDiagnostic>, fileName: String): List<Diagnostic> =
        reports.asSequence()
            .filter { it.severity >= ScriptDiagnostic.Severity.WARNING }
            .filter { it.sourcePath == null || it.sourcePath == fileName || it.location != null }
            .map { report ->
                val location = report.location
                val range = location?.let {
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

    /** Inline functions of this snippet can be called later only if later compilations see its class files. */
    private fun keepClassFiles(fileName: String, classFiles: Map<String, ByteArray>) {
        val root = classDirectories ?: Files.createTempDirectory("kotlin-llm-snippets").toFile().also { classDirectories = it }
        val directory = File(root, fileName.removeSuffix(".kts"))
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
        dependencies.close()
        compilerHost.close()
        classDirectories?.deleteRecursively()
    }

    private companion object {
        const val NOT_RUN = "the snippet was cancelled while it compiled: it did not run"

        const val WRONG_RECEIVER = "UNRESOLVED_REFERENCE_WRONG_RECEIVER"
        const val FUNCTION_EXPECTED = "FUNCTION_EXPECTED"
        const val UNRESOLVED = "UNRESOLVED_REFERENCE"
        const val ON_RECEIVER = "on receiver of type"

        /** kotlinx.coroutines' extensions that the compiler offers for a missing call or `plus`, as its candidates name them. */
        val COROUTINES = listOf("CoroutineDispatcher.invoke(", "CoroutineScope.plus(")
        const val COROUTINES_IMPORT = "kotlinx.coroutines.*"

        /** How long a hint waits for the compiler's lock (held by a completion) before going without names. */
        const val HINT_WAIT_MILLIS = 2_000L
    }
}
