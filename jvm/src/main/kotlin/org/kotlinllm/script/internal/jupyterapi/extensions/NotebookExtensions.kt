package org.kotlinllm.script.internal.jupyterapi.extensions

import org.jetbrains.kotlinx.jupyter.api.ClassAnnotationHandler
import org.jetbrains.kotlinx.jupyter.api.CodePreprocessor
import org.jetbrains.kotlinx.jupyter.api.FieldValue
import org.jetbrains.kotlinx.jupyter.api.InternalVariablesMarker
import org.jetbrains.kotlinx.jupyter.api.KotlinKernelHost
import org.jetbrains.kotlinx.jupyter.api.libraries.ColorSchemeChangedCallback
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinition
import java.util.concurrent.CopyOnWriteArrayList

/**
 * The processors and callbacks of one session's notebook: what libraries registered, kept where the cells' way through
 * the engine (`NotebookCells`) and the notebook's processors read them.
 */
internal class NotebookExtensions(val renderers: Renderers) {
    val textRenderers = TextRenderers()
    val throwableRenderers = ThrowableRenderers()
    val fieldHandlers = FieldHandlers()
    val codePreprocessors = PriorityList<CodePreprocessor>()
    val beforeCell = PriorityList<(KotlinKernelHost) -> Any?>()
    val afterCell = PriorityList<(KotlinKernelHost, Any, FieldValue) -> Unit>()
    val shutdown = PriorityList<(KotlinKernelHost) -> Any?>()
    val interruption = PriorityList<(KotlinKernelHost) -> Unit>()
    val colorSchemeChange = PriorityList<ColorSchemeChangedCallback>()
    val classAnnotations = CopyOnWriteArrayList<ClassAnnotationHandler>()
    val internalMarkers = CopyOnWriteArrayList<InternalVariablesMarker>()

    /** Which library registered a callback, for the report when it fails. */
    private val owners = java.util.IdentityHashMap<Any, String>()

    /**
     * Registers everything [definition] of [library] brings besides its dependencies, imports, init code and resources;
     * [fromCell]: a cell's `USE {}`, whose renderers come before the engine's built-ins.
     */
    fun register(definition: LibraryDefinition, library: String, fromCell: Boolean) {
        renderers.registering = Renderers.Registrant(library, fromCell)
        try {
            definition.renderers.forEach { renderers.registerWithoutOptimizing(it) }
        } finally {
            renderers.registering = null
        }
        definition.textRenderers.forEach { textRenderers.register(it.renderer, it.priority) }
        definition.throwableRenderers.forEach(throwableRenderers::register)
        definition.converters.forEach(fieldHandlers::register)
        classAnnotations += definition.classAnnotations
        definition.codePreprocessors.forEach(codePreprocessors::register)
        internalMarkers += definition.internalVariablesMarkers
        owned(library) {
            definition.initCell.forEach {
                beforeCell.register(it)
                own(it)
            }
            definition.afterCellExecution.forEach {
                afterCell.register(it)
                own(it)
            }
            definition.shutdown.forEach {
                shutdown.register(it)
                own(it)
            }
            definition.interruptionCallbacks.forEach {
                interruption.register(it)
                own(it)
            }
            definition.colorSchemeChangedCallbacks.forEach {
                colorSchemeChange.register(it)
                own(it)
            }
        }
    }

    private inline fun owned(library: String, block: OwnerScope.() -> Unit) {
        OwnerScope(library).block()
    }

    private inner class OwnerScope(private val library: String) {
        fun own(callback: Any) {
            synchronized(owners) { owners[callback] = library }
        }
    }

    /** The library that registered [callback], or how a callback registered by a cell is named. */
    fun owner(callback: Any): String = synchronized(owners) { owners[callback] } ?: "a callback registered by a cell"

    /** Whether a library marked the property [property] internal (left out of `variablesState`). */
    fun isInternal(
        property: kotlin.reflect.KProperty<*>,
    ): Boolean = internalMarkers.any { runCatching { it.isInternal(property) }.getOrDefault(false) }
}
