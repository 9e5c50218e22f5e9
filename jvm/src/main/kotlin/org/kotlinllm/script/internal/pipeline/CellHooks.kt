package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet
import java.io.File

/** A cell that was evaluated, as what follows its evaluation sees it. */
internal class EvaluatedCell(
    val fileName: String,
    /** The code as the user gave it, and as the code preprocessors made it. */
    val code: String,
    val preprocessed: String,
    val parsed: ParsedSnippet,
    /** Its class when it ran to its end. */
    val snippetClass: Class<*>?,
    val run: SnippetRun,
)

/**
 * What a cell passes through besides the stages: the code preprocessors, callbacks and processors of JetBrains'
 * kernel API (`internal.jupyterapi` implements them), around the stages of [SnippetPipeline.run].
 */
internal interface CellHooks {
    /** [code] as the code preprocessors leave it, before its magics are read. */
    fun preprocess(fileName: String, code: String): String

    /** Before the cell is compiled: it is the current cell; the before-cell callbacks, whose declarations it may use. */
    fun beforeCell(fileName: String, code: String, preprocessed: String)

    /**
     * Loads the library descriptors the cell's `%use` lines name (`%use @file[lib.json]`), before it compiles, so it
     * has their imports; the errors of those that could not be read, at their `%use` lines.
     */
    fun loadDescriptors(read: ReadSnippet): List<Diagnostic>

    /** After the cell was evaluated, before its value is rendered; the run to report (a rendered throwable's, say). */
    fun afterCell(cell: EvaluatedCell): SnippetRun

    /** Nothing to pass through: a pipeline before the API is attached. */
    object None : CellHooks {
        override fun preprocess(fileName: String, code: String): String = code

        override fun beforeCell(fileName: String, code: String, preprocessed: String) = Unit

        override fun afterCell(cell: EvaluatedCell): SnippetRun = cell.run

        override fun loadDescriptors(read: ReadSnippet): List<Diagnostic> = emptyList()
    }
}

/** A hook failed before the cell compiled (a code preprocessor threw): [message] names the library and what it threw. */
internal class HookFailure(message: String, cause: Throwable?) : RuntimeException(message, cause)

/** What the pipeline offers JetBrains' kernel host: running code, adding imports, the snippets' class loader. */
internal interface HostCode {
    /**
     * Runs [code] as a snippet of its own ([Mode.EXECUTE]) after the cell running or last run; throws
     * [IllegalStateException] inside a cell's own evaluation (it would nest evaluations) or off the session's thread.
     */
    fun execute(code: String): SnippetRun

    /** Adds [imports] to the default imports of the later snippets. */
    fun addImports(imports: Collection<String>)

    /** The jars the snippets (cells and code run for the host) added to the session since the last call. */
    fun takeAddedJars(): List<File>

    /** The options the integration [producer] of a library the catalogue knows gets: those its `%use` line gave. */
    fun integrationOptions(producer: String): Map<String, String>

    /** The class loader of the snippets evaluated so far. */
    val classLoader: ClassLoader

    /** Whether a cell's own code runs now (what it asks of the host waits until it ran). */
    val inCellCode: Boolean

    /** The file name of the cell running or last run (`snippet5.kts`). */
    val cellFileName: String
}
