package org.kotlinllm.script.internal.jupyterapi.extensions

import org.jetbrains.kotlinx.jupyter.api.ExtensionsProcessor
import org.jetbrains.kotlinx.jupyter.api.FieldHandler
import org.jetbrains.kotlinx.jupyter.api.FieldHandlerWithPriority
import org.jetbrains.kotlinx.jupyter.api.FieldValue
import org.jetbrains.kotlinx.jupyter.api.ProcessingPriority
import org.jetbrains.kotlinx.jupyter.api.RendererFieldHandler
import org.jetbrains.kotlinx.jupyter.api.RendererHandlerWithPriority
import org.jetbrains.kotlinx.jupyter.api.RenderersProcessor
import org.jetbrains.kotlinx.jupyter.api.TextRenderer
import org.jetbrains.kotlinx.jupyter.api.TextRendererWithPriority
import org.jetbrains.kotlinx.jupyter.api.TextRenderersProcessor
import org.jetbrains.kotlinx.jupyter.api.ThrowableRenderer
import org.jetbrains.kotlinx.jupyter.api.ThrowableRenderersProcessor
import org.jetbrains.kotlinx.jupyter.api.libraries.ExecutionHost
import org.kotlinllm.script.internal.routing.SessionDisplay
import org.kotlinllm.script.internal.routing.ValueRenderer
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicLong

/**
 * The extensions of one kind, as JetBrains' processors keep them: the highest priority first, among equals the latest
 * registered first.
 */
internal open class PriorityList<T : Any> : ExtensionsProcessor<T> {
    private class Entry<T>(val value: T, val priority: Int, val order: Long)

    private val entries = CopyOnWriteArrayList<Entry<T>>()
    private val order = AtomicLong()

    override fun register(extension: T, priority: Int) {
        entries += Entry(extension, priority, order.incrementAndGet())
    }

    override fun unregister(extension: T) {
        entries.removeIf { it.value == extension }
    }

    override fun unregisterAll() {
        entries.clear()
    }

    override fun registeredExtensions(): Collection<T> = sorted().map { it.value }

    override fun registeredExtensionsWithPriority(): List<Pair<T, Int>> = sorted().map { it.value to it.priority }

    private fun sorted() = entries.sortedWith(compareByDescending<Entry<T>> { it.priority }.thenByDescending { it.order })
}

/** The converters of declared variables (`addTypeConverter`, `updateVariable`, `onVariable`). */
internal class FieldHandlers : PriorityList<FieldHandler>(), org.jetbrains.kotlinx.jupyter.api.FieldsProcessor {
    override fun registeredHandlers(): List<FieldHandlerWithPriority> =
        registeredExtensionsWithPriority().map { (handler, priority) -> FieldHandlerWithPriority(handler, priority) }
}

/** The text renderers (`addTextRenderer`): the `text/plain` of a value. */
internal class TextRenderers : PriorityList<TextRenderer>(), TextRenderersProcessor {
    override fun render(value: Any?): String = renderedOrNull(value) ?: value.toString()

    /** The text the first renderer gives [value], null when none takes it. */
    fun renderedOrNull(value: Any?): String? = registeredExtensions().firstNotNullOfOrNull { it.render(this, value) }

    override fun registeredRenderers(): List<TextRendererWithPriority> =
        registeredExtensionsWithPriority().map { (renderer, priority) -> TextRendererWithPriority(renderer, priority) }
}

/** The renderers of exceptions a cell threw (`renderThrowable`), the latest first. */
internal class ThrowableRenderers : ThrowableRenderersProcessor {
    private val renderers = CopyOnWriteArrayList<ThrowableRenderer>()

    override fun register(renderer: ThrowableRenderer) {
        renderers.add(0, renderer)
    }

    override fun renderThrowable(throwable: Throwable): Any? = renderers.firstOrNull { it.accepts(throwable) }?.render(throwable)
}

/**
 * JetBrains' renderers processor over the session's one list of renderers ([SessionDisplay]): a handler registered
 * here is a [ValueRenderer] there, tried after the cells' renderers and the engine's built-ins when a library's
 * integration registered it.
 */
internal class Renderers(private val display: SessionDisplay, private val host: () -> ExecutionHost) : RenderersProcessor {

    private inner class Handler(
        val handler: RendererFieldHandler,
        override val priority: Int,
        val registrant: Registrant?,
    ) : ValueRenderer {
        override val origin: String get() = registrant?.let { "the renderer of ${it.name}" } ?: "a renderer registered by a cell"
        override val fromLibrary: Boolean get() = registrant?.fromCell == false

        override fun accepts(value: Any): Boolean = handler.acceptsField(FieldValue(value, null))

        override fun render(value: Any): Any? = handler.execution.execute(host(), FieldValue(value, null)).value
    }

    /** Who registers renderers now: a library, or a cell's `USE {}` ([Registrant.fromCell]); null, a cell's own code. */
    @Volatile
    var registering: Registrant? = null

    /** A library registering renderers, by the name reports give it; [fromCell]: a cell's `USE {}`. */
    class Registrant(val name: String, val fromCell: Boolean)

    override fun renderValue(host: ExecutionHost, value: Any?): Any? = display.rendered(value)

    override fun registerWithoutOptimizing(handler: RendererFieldHandler) {
        registerWithoutOptimizing(handler, ProcessingPriority.DEFAULT)
    }

    override fun registerWithoutOptimizing(handler: RendererFieldHandler, priority: Int) {
        display.add(Handler(handler, priority, registering))
    }

    override fun unregister(handler: RendererFieldHandler) {
        display.registered().filter { it is Handler && it.handler == handler }.forEach(display::remove)
    }

    override fun unregisterAll() {
        display.registered().filterIsInstance<Handler>().forEach(display::remove)
    }

    override fun registeredRenderers(): List<RendererHandlerWithPriority> =
        display.registered().filterIsInstance<Handler>().map { RendererHandlerWithPriority(it.handler, it.priority) }
}
