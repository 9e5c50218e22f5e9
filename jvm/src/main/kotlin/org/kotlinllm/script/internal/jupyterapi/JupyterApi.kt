package org.kotlinllm.script.internal.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.Notebook
import org.kotlinllm.script.internal.jupyterapi.descriptor.LibraryDescriptors
import org.kotlinllm.script.internal.jupyterapi.extensions.NotebookExtensions
import org.kotlinllm.script.internal.jupyterapi.extensions.Renderers
import org.kotlinllm.script.internal.pipeline.CellHooks
import org.kotlinllm.script.internal.pipeline.HostCode
import org.kotlinllm.script.internal.routing.SessionDisplay
import org.kotlinllm.script.internal.session.SessionSymbols
import java.io.File

/**
 * JetBrains' kernel API for one session: its [notebook] (what `notebook`, `USE`, `Out` and libraries reach) and the
 * [hooks] each cell passes through. Attached to the session's pipeline once its compiler started.
 */
internal class JupyterApi(
    code: HostCode,
    display: SessionDisplay,
    symbols: SessionSymbols,
    linkCheck: (List<File>, ClassLoader) -> List<String>,
) {
    private val history: CellHistory
    private val loading: LibraryLoading
    private val cells: NotebookCells

    val notebook: Notebook

    init {
        lateinit var kernelNotebook: KernelNotebook
        lateinit var libraryLoading: LibraryLoading
        history = CellHistory { kernelNotebook }
        val extensions = NotebookExtensions(Renderers(display) { kernelNotebook.executionHost })
        val host = KernelHost(code, display, history) { libraryLoading }
        kernelNotebook = KernelNotebook(host, history, symbols, extensions) { text, options ->
            LibraryDescriptors.parse(text, options, "loadLibraryDescriptor")
        }
        val resources = LibraryResources(display, { code.classLoader }, ::notice)
        libraryLoading = LibraryLoading(host, code, extensions, resources, ::error)
        loading = libraryLoading
        val integrations = Integrations(code, { kernelNotebook }, { libraryLoading }, linkCheck, ::notice)
        cells = NotebookCells(code, host, history, symbols, extensions, integrations, { libraryLoading }, { kernelNotebook }, ::error)
        notebook = kernelNotebook
        display.notebook = kernelNotebook
        display.textRenderer = { value -> extensions.textRenderers.renderedOrNull(value) }
    }

    val hooks: CellHooks get() = cells

    /** The libraries' shutdown callbacks, when the session closes. */
    fun shutdown() {
        cells.shutdown()
    }

    /** The libraries' interruption callbacks, when a cell was interrupted. */
    fun interrupted() {
        cells.interrupted()
    }

    private fun notice(text: String) {
        System.err.println("[kotlin-llm] $text")
    }

    private fun error(text: String) {
        System.err.println("[kotlin-llm] error: $text")
    }
}
