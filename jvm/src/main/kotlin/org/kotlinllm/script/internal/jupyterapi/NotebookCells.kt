package org.kotlinllm.script.internal.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.FieldValue
import org.jetbrains.kotlinx.jupyter.api.KotlinKernelHost
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.internal.compiler.source.DeclaredName
import org.kotlinllm.script.internal.compiler.source.UseMagic
import org.kotlinllm.script.internal.jupyterapi.descriptor.DescriptorException
import org.kotlinllm.script.internal.jupyterapi.descriptor.DescriptorTexts
import org.kotlinllm.script.internal.jupyterapi.descriptor.LibraryDescriptors
import org.kotlinllm.script.internal.jupyterapi.extensions.NotebookExtensions
import org.kotlinllm.script.internal.jupyterapi.extensions.Renderers
import org.kotlinllm.script.internal.pipeline.CellHooks
import org.kotlinllm.script.internal.pipeline.EvaluatedCell
import org.kotlinllm.script.internal.pipeline.HookFailure
import org.kotlinllm.script.internal.pipeline.HostCode
import org.kotlinllm.script.internal.pipeline.ReadSnippet
import org.kotlinllm.script.internal.pipeline.RunResult
import org.kotlinllm.script.internal.pipeline.SnippetRun
import org.kotlinllm.script.internal.session.SessionSymbols
import java.nio.file.Path
import kotlin.reflect.KClass

/**
 * A cell's way through JetBrains' API, in the order of that kernel: its code preprocessors, the before-cell callbacks,
 * (the engine compiles and evaluates it,) then a thrown exception's renderer, the converters of the variables it
 * declared, the handlers of its annotated classes, the integrations of the jars it added, what its code scheduled
 * (`USE {}`, `EXECUTE`), and the after-cell callbacks. A failing callback is reported naming its library; the cell's
 * result stays.
 */
internal class NotebookCells(
    private val code: HostCode,
    private val host: KernelHost,
    private val history: CellHistory,
    private val symbols: SessionSymbols,
    private val extensions: NotebookExtensions,
    private val integrations: Integrations,
    private val loading: () -> LibraryLoading,
    /** The session's notebook, which the libraries of code preprocessors are defined for. */
    private val notebook: () -> org.jetbrains.kotlinx.jupyter.api.Notebook,
    private val report: (String) -> Unit,
) : CellHooks {

    override fun preprocess(fileName: String, code: String): String {
        var processed = code
        for (preprocessor in extensions.codePreprocessors.registeredExtensions()) {
            val result = try {
                if (!preprocessor.accepts(processed)) continue
                preprocessor.process(processed, host)
            } catch (e: Throwable) {
                if (e is VirtualMachineError && e !is StackOverflowError) throw e
                throw HookFailure(Faults.describe(extensions.owner(preprocessor), "its code preprocessor", e), e)
            }
            processed = result.code
            if (result.libraries.isNotEmpty()) host.addLibraries(result.libraries.flatMap { it.getDefinitions(notebook()) })
        }
        return processed
    }

    override fun beforeCell(fileName: String, code: String, preprocessed: String) {
        // a cell of the user's (not the session's prelude) is the current cell from now on
        CELL_NUMBER.find(fileName)?.let { history.start(it.groupValues[1].toInt(), code, preprocessed) }
        for (callback in extensions.beforeCell.registeredExtensions()) {
            guarded(extensions.owner(callback), "its before-cell callback") { callback(host) }
        }
    }

    override fun afterCell(cell: EvaluatedCell): SnippetRun {
        val run = rendered(cell.run)
        val current = history.history(0)
        current?.declarations = cell.parsed.declarations.map(CellHistory::info)
        current?.result = (run.result as? RunResult.Value)?.value
        if (cell.snippetClass != null) {
            convert(cell)
            annotations(cell)
        }
        // the after-cell callbacks of libraries loaded before this cell: one its own code loads starts with the next
        val afterCell = extensions.afterCell.registeredExtensions()
        loadIntegrations()
        host.runScheduled { report(Faults.describe("code the cell scheduled", "it", it)) }
        loadIntegrations()
        val value = FieldValue(current?.result, null)
        for (callback in afterCell) {
            guarded(extensions.owner(callback), "its after-cell callback") { callback(host, cell.snippetClass ?: Unit, value) }
        }
        return run
    }

    override fun loadDescriptors(read: ReadSnippet): List<Diagnostic> = read.used?.descriptors.orEmpty().mapNotNull { request ->
        val source = when (request) {
            is UseMagic.DescriptorFile -> request.path
            is UseMagic.DescriptorUrl -> request.url
            else -> return@mapNotNull null
        }
        val definition = try {
            val text = if (request is UseMagic.DescriptorFile) DescriptorTexts.file(
                source,
                Path.of("").toAbsolutePath(),
            ) else DescriptorTexts.url(source)
            LibraryDescriptors.parse(text, request.options, source)
        } catch (e: DescriptorException) {
            return@mapNotNull Diagnostic(Severity.ERROR, "`%use ${request.text}`: ${e.message}", request.range)
        }
        loading().apply(listOf(definition), "the library of `%use ${request.text}`")
        null
    }

    /** The integrations of the jars added since the last look, until loading them adds none. */
    private fun loadIntegrations() {
        repeat(MAX_ROUNDS) {
            val jars = code.takeAddedJars()
            if (jars.isEmpty()) return
            integrations.load(jars)
        }
    }

    /** A thrown exception a library renders (`renderThrowable`): the cell's value is its rendering. */
    private fun rendered(run: SnippetRun): SnippetRun {
        val thrown = run.thrown ?: return run
        if (run.result !is RunResult.Error || run.notRun) return run
        val rendering = try {
            extensions.throwableRenderers.renderThrowable(thrown)
        } catch (e: Throwable) {
            if (e is VirtualMachineError && e !is StackOverflowError) throw e
            report(Faults.describe("a throwable renderer", "it", e))
            null
        } ?: return run
        return SnippetRun(RunResult.Value(rendering))
    }

    /** The converters of the properties [cell] declared (`addTypeConverter`, `updateVariable`, `onVariable`). */
    private fun convert(cell: EvaluatedCell) {
        val handlers = extensions.fieldHandlers.registeredExtensions()
        if (handlers.isEmpty()) return
        val properties = cell.parsed.declarations.filter { it.kind == DeclaredName.Kind.PROPERTY }.distinctBy { it.name }
        for (declaration in properties) {
            val property = property(declaration)
            val value = runCatching { property.get() }.getOrNull() ?: continue
            val handler = handlers.firstOrNull { runCatching { it.accepts(value, property) }.getOrDefault(false) } ?: continue
            guarded(extensions.owner(handler), "its converter of '${declaration.name}'") {
                @Suppress("UNCHECKED_CAST")
                (handler.execution as org.jetbrains.kotlinx.jupyter.api.FieldHandlerExecution<Any>).execute(host, value, property)
            }
        }
        handlers.forEach { handler -> guarded(extensions.owner(handler), "its converter") { handler.finalize(host) } }
    }

    private fun property(declaration: DeclaredName): SnippetProperty {
        val name = declaration.name
        val read = { symbols.value(name)?.getOrNull() }
        return if (declaration.header.trimStart().startsWith("var ") || " var " in declaration.header) {
            MutableSnippetProperty(name, read) { throw UnsupportedOperationException("assigning $name from a library") }
        } else {
            SnippetProperty(name, read)
        }
    }

    /** The handlers of annotations on the classes [cell] declared (`onClassAnnotation`). */
    private fun annotations(cell: EvaluatedCell) {
        if (extensions.classAnnotations.isEmpty()) return
        val snippetClass = cell.snippetClass ?: return
        val classes = cell.parsed.declarations.filter { it.kind == DeclaredName.Kind.CLASS }.distinctBy { it.name }.mapNotNull {
            runCatching { Class.forName("${snippetClass.name}$${it.name}", false, snippetClass.classLoader).kotlin }.getOrNull()
        }
        for (handler in extensions.classAnnotations) {
            val annotated: List<KClass<*>> = classes.filter { type -> type.java.annotations.any { handler.annotation.java.isInstance(it) } }
            if (annotated.isEmpty()) continue
            guarded(extensions.owner(handler), "its handler of @${handler.annotation.simpleName}") { handler.callback(host, annotated) }
        }
    }

    /** Runs a library's [action], reporting its failure (the cell and the session go on). */
    private inline fun guarded(library: String, what: String, action: () -> Unit) {
        try {
            action()
        } catch (e: Throwable) {
            if (e is VirtualMachineError && e !is StackOverflowError) throw e
            report(Faults.describe(library, what, e))
        }
    }

    /** The shutdown callbacks, when the session closes. */
    fun shutdown() {
        for (callback in extensions.shutdown.registeredExtensions()) {
            guarded(extensions.owner(callback), "its shutdown callback") { callback(host) }
        }
    }

    /** The interruption callbacks, when a cell is interrupted. */
    fun interrupted(hostForCallbacks: KotlinKernelHost = host) {
        for (callback in extensions.interruption.registeredExtensions()) {
            guarded(extensions.owner(callback), "its interruption callback") { callback(hostForCallbacks) }
        }
    }

    private companion object {
        /** Integrations whose loading adds jars with integrations: a chain this long is a loop. */
        const val MAX_ROUNDS = 8
        val CELL_NUMBER = Regex("""^snippet(\d+)\.kts$""")
    }
}
