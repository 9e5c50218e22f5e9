package org.kotlinllm.script.internal.compiler

import io.github.oshai.kotlinlogging.KotlinLogging
import org.jetbrains.kotlin.com.intellij.openapi.Disposable
import org.jetbrains.kotlin.com.intellij.openapi.project.Project
import org.jetbrains.kotlin.com.intellij.openapi.util.Disposer
import org.jetbrains.kotlin.psi.KtExperimentalApi
import org.jetbrains.kotlin.psi.KtNonPublicApi
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompilationState
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompiler
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplEvaluator
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.ScriptDiagnosticsMessageCollector
import org.jetbrains.kotlin.scripting.compiler.plugin.services.firReplHistoryProvider
import org.jetbrains.kotlin.scripting.compiler.plugin.services.isReplSnippetSource
import org.jetbrains.kotlin.scripting.resolve.KtFileScriptSource
import org.kotlinllm.script.diagnostics.CompilerDiagnostics
import org.kotlinllm.script.internal.bytecode.SnippetBytecode
import org.kotlinllm.script.internal.bytecode.ValueClassCalls
import org.kotlinllm.script.internal.compiler.source.ShadowingImports
import org.kotlinllm.script.internal.routing.OutputRouting
import org.kotlinllm.script.internal.routing.StopGate
import java.io.File
import java.util.concurrent.TimeUnit
import java.util.concurrent.locks.ReentrantLock
import kotlin.script.experimental.api.CompiledScript
import kotlin.script.experimental.api.ResultValue
import kotlin.script.experimental.api.ResultWithDiagnostics
import kotlin.script.experimental.api.ScriptCompilationConfiguration
import kotlin.script.experimental.api.ScriptConfigurationRefinementContext
import kotlin.script.experimental.api.ScriptDiagnostic
import kotlin.script.experimental.api.ScriptEvaluationConfiguration
import kotlin.script.experimental.api.SourceCode
import kotlin.script.experimental.api.asSuccess
import kotlin.script.experimental.api.compilerOptions
import kotlin.script.experimental.api.defaultImports
import kotlin.script.experimental.api.refineConfiguration
import kotlin.script.experimental.api.repl
import kotlin.script.experimental.api.with
import kotlin.script.experimental.host.ScriptingHostConfiguration
import kotlin.script.experimental.jvm.KJvmEvaluatedSnippet
import kotlin.script.experimental.jvm.baseClassLoader
import kotlin.script.experimental.jvm.defaultJvmScriptingHostConfiguration
import kotlin.script.experimental.jvm.dependenciesFromClassloader
import kotlin.script.experimental.jvm.impl.KJvmCompiledModuleInMemory
import kotlin.script.experimental.jvm.impl.KJvmCompiledScript
import kotlin.script.experimental.jvm.jvm
import kotlin.script.experimental.jvm.jvmTarget
import kotlin.script.experimental.jvm.loadDependencies
import kotlin.script.experimental.jvm.updateClasspath
import kotlin.script.experimental.util.LinkedSnippet
import kotlin.script.experimental.util.LinkedSnippetImpl

private val logger = KotlinLogging.logger {}

/** What compiling one snippet gave. */
internal sealed interface Compilation {
    /**
     * Compiled; [diagnostics] are its warnings; [classFiles] its class files by path inside the module; [classpath]
     * what it was compiled with beyond the session's, for the later snippets once it is evaluated.
     */
    class Compiled(
        val snippet: LinkedSnippet<CompiledScript>,
        val diagnostics: List<ScriptDiagnostic>,
        val classFiles: Map<String, ByteArray>,
        val classpath: List<File> = emptyList(),
    ) : Compilation

    class Failed(val diagnostics: List<ScriptDiagnostic>) : Compilation

    /** The compiler threw instead of reporting: one of its internal failures. */
    class Crashed(val cause: Throwable) : Compilation
}

/** What evaluating one compiled snippet gave. */
internal sealed interface Evaluation {
    class Returned(val value: Any?, val type: String?, val scriptClass: Class<*>?) : Evaluation
    object NoValue : Evaluation
    class Threw(val error: Throwable) : Evaluation

    /** The evaluator itself failed (not the snippet's code). */
    class Broken(val message: String, val cause: Throwable?) : Evaluation
}

/**
 * The K2 REPL compiler and evaluator of one session, with the host-side repairs the shipped REPL needs:
 * a transactional history, so failed snippets leave nothing behind, and rollback of compiled snippets that are not
 * evaluated. Compiles and evaluates on the session's thread only; [probe] may be called on any thread, as the
 * compiler's state is touched under [lock] only (the CLI compiler's caches are plain maps), which evaluations do not hold.
 */
internal class ReplCompilerHost(hostClassLoader: ClassLoader) : AutoCloseable {

    private val disposable: Disposable = Disposer.newDisposable("kotlin-llm session")
    private val messageCollector = ScriptDiagnosticsMessageCollector(null)

    /** The snippets the compiler resolves against; the completion package reads it. */
    val history: TransactionalReplHistory = TransactionalReplHistory()
    private val compilationConfiguration = ScriptCompilationConfiguration {
        jvm {
            dependenciesFromClassloader(classLoader = hostClassLoader, wholeClasspath = true)
            // the engine's own inline functions (render<T>) are built for 17, the lowest JDK it runs on
            jvmTarget("17")
        }
        defaultImports(
            "kotlinx.coroutines.*",
            // as in Kotlin notebooks: sqrt, max, pow, PI without an import (a snippet's own declarations win)
            "kotlin.math.*",
            "kotlin.script.experimental.dependencies.DependsOn",
            "kotlin.script.experimental.dependencies.Repository",
            // JetBrains' kernel API, as that kernel imports it (MimeTypes, HTML, MIME, mimeResult, JupyterIntegration,
            // KotlinKernelHost, …); the engine's names below are explicit imports, which win over these
            "org.jetbrains.kotlinx.jupyter.api.*",
            "org.jetbrains.kotlinx.jupyter.api.libraries.*",
            "org.jetbrains.kotlinx.jupyter.api.outputs.*",
            "kotlin.time.Duration.Companion.nanoseconds",
            "kotlin.time.Duration.Companion.microseconds",
            "kotlin.time.Duration.Companion.milliseconds",
            "kotlin.time.Duration.Companion.seconds",
            "kotlin.time.Duration.Companion.minutes",
            "kotlin.time.Duration.Companion.hours",
            "kotlin.time.Duration.Companion.days",
            // the ScriptScope is reached through these, not as an implicit receiver: see ScopeFunctions.kt
            "org.kotlinllm.script.runtime.await",
            "org.kotlinllm.script.runtime.launch",
            "org.kotlinllm.script.runtime.async",
            "org.kotlinllm.script.runtime.coroutineContext",
            "org.kotlinllm.script.runtime.scriptScope",
            // the display API, by name (as Kotlin notebooks call it): a user's explicit import of a name wins
            "org.kotlinllm.script.runtime.DISPLAY",
            "org.kotlinllm.script.runtime.UPDATE_DISPLAY",
            "org.kotlinllm.script.runtime.LATEX",
            "org.kotlinllm.script.runtime.JSON",
            "org.kotlinllm.script.runtime.Image",
            "org.kotlinllm.script.runtime.clearOutput",
            "org.kotlinllm.script.runtime.render",
            // the members of JetBrains' script receiver, top-level here (KernelApi.kt)
            "org.kotlinllm.script.runtime.notebook",
            "org.kotlinllm.script.runtime.Out",
            "org.kotlinllm.script.runtime.SessionOptions",
            "org.kotlinllm.script.runtime.JavaRuntimeUtils",
            "org.kotlinllm.script.runtime.USE",
            "org.kotlinllm.script.runtime.EXECUTE",
            "org.kotlinllm.script.runtime.loadLibraryDescriptor",
            "org.kotlinllm.script.runtime.loadLibraryProducers",
            "org.kotlinllm.script.runtime.loadLibraryDefinitions",
            "org.kotlinllm.script.runtime.variablesReport",
            // stdin: a password prompt (plain reads of System.in need no import)
            "org.kotlinllm.script.runtime.readPassword",
            // the session's declarations with their types, like the `:vars` of Kotlin notebooks
            "org.kotlinllm.script.runtime.vars",
        )
        // the names of diagnostics (CompilerDiagnostics); plugins, which the K2 REPL loads only when it creates the
        // session's compiler state (CompilerPlugins)
        compilerOptions(listOf(CompilerDiagnostics.OPTION) + CompilerPlugins.options())
        refineConfiguration { beforeCompiling(handler = ::holdSnippetTree) }
    }
    private val snippetLoader = SnippetClassLoader(hostClassLoader)

    /** Every snippet's classes and added jars are loaded by [snippetLoader], not by a loader of its own. */
    private val evaluationConfiguration = ScriptEvaluationConfiguration {
        jvm {
            baseClassLoader(snippetLoader)
            loadDependencies(false)
        }
    }
    private val hostConfiguration = ScriptingHostConfiguration(defaultJvmScriptingHostConfiguration) {
        repl {
            firReplHistoryProvider(history)
            isReplSnippetSource { _, _ -> true }
        }
    }
    private val state: K2ReplCompilationState = K2ReplCompiler.createCompilationState(
        messageCollector,
        disposable,
        compilationConfiguration,
        hostConfiguration,
    )
    private val compiler = K2ReplCompiler(state)
    private val memory = CompilerMemory(state)
    private val evaluator = K2ReplEvaluator()
    private val addedClasspath = mutableListOf<File>()
    private val valueClassCalls = ValueClassCalls()
    private val lock = ReentrantLock()
    private val completionProbe = CompletionProbe(state, history, memory)

    /**
     * The syntax tree of the snippet being compiled, held until its compilation ends. The compiler parses each snippet
     * into a PSI file of its own that keeps its tree only through a SoftReference, and marks the script as a REPL
     * snippet in user data of that tree; a collection clearing soft references (a nearly full heap does) before the
     * compiler reads the mark would make it parse the text again, unmarked, and compile a plain script that the REPL
     * evaluator cannot run (no `$$eval`).
     */
    private var snippetTree: Any? = null

    /** The extra default imports of the snippet being compiled, added when the compiler refines its configuration. */
    private var snippetImports: List<String> = emptyList()

    /** The default imports the snippet being compiled goes without, left out when the compiler refines its configuration. */
    private var snippetWithout: Set<String> = emptySet()

    /** Called by the compiler with its PSI file of the snippet, before it builds the FIR: holds the tree (see [snippetTree]). */
    @OptIn(KtExperimentalApi::class, KtNonPublicApi::class)
    private fun holdSnippetTree(context: ScriptConfigurationRefinementContext): ResultWithDiagnostics<ScriptCompilationConfiguration> {
        val file = (context.script as? KtFileScriptSource)?.ktFile
        if (file != null) {
            val script = file.script
            snippetTree = file.node to script
            if (script != null && !script.isReplSnippet) script.markAsReplSnippet() // lost already: marked again
        }
        val configuration = context.compilationConfiguration
        if (snippetImports.isEmpty() && snippetWithout.isEmpty()) return configuration.asSuccess()
        val imports =
            configuration[ScriptCompilationConfiguration.defaultImports].orEmpty().filter { it !in snippetWithout } + snippetImports
        return configuration.with { defaultImports(imports) }.asSuccess()
    }

    /** The loader of every snippet's classes and added jars. */
    val classLoader: ClassLoader get() = snippetLoader

    /** The compiler's state, for the checks of what it retains of the snippets (K2InternalsTest). */
    internal val compilationState: K2ReplCompilationState get() = state

    /** The compiler's project, for parsing snippets with the same PSI it uses. */
    val project: Project get() = state.project

    /** Puts the jars of libraries on the classpath of every later compilation and on the snippets' class loader. */
    fun addLibraries(jars: List<File>) {
        addedClasspath += jars
        snippetLoader.add(emptyMap(), jars)
    }

    /** Adds [entries] to the classpath of this and every later compilation. */
    fun addClasspath(entries: List<File>) {
        addedClasspath += entries
    }

    /**
     * Compiles [source], with [extraClasspath] added for it (and, if it compiles, for the later snippets), with
     * [extraImports] among its default imports (see [ShadowingImports]) and [withoutImports] left out of them.
     */
    fun compile(
        source: SourceCode,
        extraClasspath: List<File> = emptyList(),
        extraImports: List<String> = emptyList(),
        withoutImports: Collection<String> = emptyList(),
    ): Compilation = locked { compileLocked(source, extraClasspath, extraImports, withoutImports) }

    private fun compileLocked(
        source: SourceCode,
        extraClasspath: List<File>,
        extraImports: List<String>,
        withoutImports: Collection<String>,
    ): Compilation {
        val previous = state.lastCompiledSnippet
        val classpath = addedClasspath + extraClasspath
        val configuration = if (classpath.isEmpty()) compilationConfiguration
        else compilationConfiguration.with { updateClasspath(classpath) }
        snippetImports = extraImports
        snippetWithout = withoutImports.toSet()
        val started = System.nanoTime()
        val result = try {
            OutputRouting.toCompilerLog { callSuspending { compiler.compile(listOf(source), configuration) } }
        } catch (e: Throwable) {
            if (e is VirtualMachineError && e !is StackOverflowError) throw e
            forget(previous)
            logger.debug(e) { "compiling ${source.name} crashed the compiler" }
            return Compilation.Crashed(e)
        } finally {
            snippetTree = null
            snippetImports = emptyList()
            snippetWithout = emptySet()
            memory.forgetConfigurations()
            logger.debug { "compiled ${source.name} in ${(System.nanoTime() - started) / 1_000_000} ms" }
        }
        return when (result) {
            is ResultWithDiagnostics.Success -> compiled(source, result.value, extraClasspath)
            is ResultWithDiagnostics.Failure -> {
                forget(previous)
                Compilation.Failed((result.reports + messageCollector.diagnostics).distinct())
            }
        }
    }

    /** The compiled [snippet] of [source], its class files instrumented before anything loads them. */
    private fun compiled(source: SourceCode, snippet: LinkedSnippet<CompiledScript>, extraClasspath: List<File>): Compilation.Compiled {
        val module = (snippet.get() as? KJvmCompiledScript)?.getCompiledModule() as? KJvmCompiledModuleInMemory
        val classFiles = module?.compilerOutputFiles.orEmpty()
        (classFiles as? MutableMap<String, ByteArray>)?.let { SnippetBytecode.instrument(it, valueClassCalls) }
            ?: logger.warn { "the class files of ${source.name} cannot be instrumented: busy loops cannot be cancelled" }
        return Compilation.Compiled(snippet, messageCollector.diagnostics.toList(), classFiles, extraClasspath)
    }

    /**
     * Evaluates [compiled] inside [stopGate]; one that [declaresAnything] not is forgotten by the compiler
     * afterwards. Its classpath joins the later compilations' from here on.
     */
    fun evaluate(compiled: Compilation.Compiled, declaresAnything: Boolean = true, stopGate: StopGate = StopGate()): Evaluation {
        val previous = compiled.snippet.previous as? LinkedSnippetImpl<CompiledScript>
        addedClasspath += compiled.classpath
        snippetLoader.add(compiled.classFiles, compiled.classpath)
        val started = System.nanoTime()
        val thread = Thread.currentThread()
        // the snippet sets its own class loader as the context one (SnippetBytecode); restored afterwards
        val contextLoader = thread.contextClassLoader
        val result = try {
            stopGate.evaluation { callSuspending { evaluator.eval(compiled.snippet, evaluationConfiguration) } }
        } catch (e: Throwable) {
            if (e is VirtualMachineError && e !is StackOverflowError) throw e
            forget(previous)
            return Evaluation.Broken("the evaluator failed: $e", e)
        } finally {
            thread.contextClassLoader = contextLoader
            logger.debug { "evaluated in ${(System.nanoTime() - started) / 1_000_000} ms" }
        }
        locked {
            if (!history.commit(declaresAnything)) memory.forgetLast(compiled.snippet.get().sourceLocationId.orEmpty())
            memory.trimKept()
        }
        return when (result) {
            is ResultWithDiagnostics.Failure -> {
                val report = result.reports.firstOrNull()
                Evaluation.Broken(report?.message ?: "the evaluator failed", report?.exception)
            }
            is ResultWithDiagnostics.Success -> when (val value = (result.value.get() as KJvmEvaluatedSnippet).result) {
                is ResultValue.Value -> Evaluation.Returned(value.value, value.type, value.scriptClass?.java)
                is ResultValue.Unit -> Evaluation.NoValue
                is ResultValue.Error -> Evaluation.Threw(value.error)
                is ResultValue.NotEvaluated -> Evaluation.Broken("the snippet was not evaluated", null)
            }
        }
    }

    /**
     * Drops the class files of [compiled], just evaluated, once each of its classes is loaded: the class loader and
     * the compiled snippet would hold them for the rest of the session (~2 kB a snippet), and no later compilation
     * reads them (the caller keeps those of inline functions on disk first). A class that does not load keeps its
     * bytes, and so do the module's other files.
     */
    fun releaseClassFiles(compiled: Compilation.Compiled) {
        @Suppress("UNCHECKED_CAST")
        val files = compiled.classFiles as? MutableMap<String, ByteArray> ?: return
        snippetLoader.release(files)
    }

    /** Forgets [compiled] without evaluating it, as if it had failed to compile. */
    fun discard(compiled: Compilation.Compiled) {
        forget(compiled.snippet.previous as? LinkedSnippetImpl<CompiledScript>)
    }

    /** The signatures of what the snippet compiled last declares, by name (see [DeclaredTypes]); before it is evaluated. */
    fun compiledDeclarations(): Map<String, List<String>> = locked { history.lastPending()?.let(DeclaredTypes::signatures).orEmpty() }

    /** The JVM name of [compiled]'s class. */
    fun className(compiled: Compilation.Compiled): String? = (compiled.snippet.get() as? KJvmCompiledScript)?.scriptClassFQName

    /** The class of the last snippet evaluated, whose class loader sees every earlier snippet. */
    fun lastEvaluatedClass(): Class<*>? = evaluator.lastEvaluatedSnippet?.get()?.result?.scriptClass?.java

    private fun forget(previous: LinkedSnippetImpl<CompiledScript>?) {
        locked {
            history.rollback()
            state.lastCompiledSnippet = previous
        }
    }

    private inline fun <T> locked(block: () -> T): T {
        lock.lock()
        try {
            return block()
        } finally {
            lock.unlock()
        }
    }

    /** Whether a thread waits for the compiler (a snippet's compilation, a completion): a warm-up then yields to it. */
    fun othersWaiting(): Boolean = lock.hasQueuedThreads()

    /**
     * [read] of [text] resolved by the K2 frontend as the next snippet (completion and inspection read it); null when
     * the compiler stayed busy for [waitMillis] or the resolution failed (the caller falls back to names). Changes
     * nothing of the session.
     */
    fun <T> probe(text: String, waitMillis: Long, read: (ResolvedProbe) -> T): T? {
        if (!completionProbe.available || !lock.tryLock(waitMillis, TimeUnit.MILLISECONDS)) return null
        return try {
            completionProbe.resolve(text, read)
        } catch (e: Exception) {
            logger.warn(e) { "the completion probe failed" }
            null
        } catch (e: LinkageError) {
            logger.warn(e) { "the completion probe failed" }
            null
        } finally {
            snippetTree = null
            lock.unlock()
        }
    }

    override fun close() {
        Disposer.dispose(disposable)
    }
}
