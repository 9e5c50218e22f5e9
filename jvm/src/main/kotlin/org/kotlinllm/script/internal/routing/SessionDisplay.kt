package org.kotlinllm.script.internal.routing

import org.jetbrains.kotlinx.jupyter.api.DisplayResult
import org.jetbrains.kotlinx.jupyter.api.Notebook
import org.jetbrains.kotlinx.jupyter.api.Renderable
import org.kotlinllm.script.internal.libraries.LibraryRenderers
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.runtime.DisplayBundles
import org.kotlinllm.script.runtime.DisplaySink
import org.kotlinllm.script.runtime.Image
import org.kotlinllm.script.runtime.MimeBundle
import java.awt.image.BufferedImage
import java.io.ByteArrayOutputStream
import java.util.Base64
import java.util.concurrent.CopyOnWriteArrayList
import javax.imageio.ImageIO

/** Where a session's displays go: a host that shows them (tagged with the snippet, in order with the output). */
internal interface DisplayTarget {
    fun display(bundle: MimeBundle, displayId: String?, update: Boolean)

    fun clearOutput(wait: Boolean)
}

/** One renderer of a session's values: a snippet's `render<T>`, or a `RendererFieldHandler` of JetBrains' API. */
internal interface ValueRenderer {
    /** Who registered it, for the notice when it throws: `render<Money> registered by snippet3.kts:2`. */
    val origin: String

    /** Registered by a library's integration (not a cell): tried after the engine's built-in renderers. */
    val fromLibrary: Boolean

    /** Higher first; among equals, the latest registered first. */
    val priority: Int

    fun accepts(value: Any): Boolean

    fun render(value: Any): Any?
}

/**
 * The display of one session: its renderers and how a value becomes a [MimeBundle]. Without a [target] (a session
 * that prints to the process's streams), a display prints its text.
 */
internal class SessionDisplay(
    private val target: DisplayTarget?,
    /** A snippet's frame as `snippetN.kts:line`, inlined code mapped to the line that called it. */
    private val locate: (StackTraceElement) -> String = { "${it.fileName}:${it.lineNumber}" },
) : DisplaySink {

    private class Renderer(val type: Class<*>, val function: (Any) -> Any?, where: String) : ValueRenderer {
        override val origin = "render<${type.simpleName}> registered by $where"
        override val fromLibrary = false
        override val priority = 0

        override fun accepts(value: Any) = type.isInstance(value)

        override fun render(value: Any) = function(value)
    }

    /** In the order they are tried: by priority, the most recent first. */
    private val renderers = CopyOnWriteArrayList<ValueRenderer>()

    /** The notebook a JetBrains `Renderable` renders for; none before the session's compiler started. */
    @Volatile
    var notebook: Notebook? = null

    /** The text of a value by the session's text renderers (JetBrains' `TextRenderer`s), null when none applies. */
    @Volatile
    var textRenderer: ((Any?) -> String?)? = null

    override fun display(value: Any?, id: String?, update: Boolean) {
        if (value === Unit && !update) return
        val bundle = bundleOf(value)
        // what the snippet printed before comes first: a stream wrapped by the snippet may hold it
        System.out.flush()
        System.err.flush()
        if (target == null) println(bundle.plain) else target.display(bundle, id ?: bundle.id, update)
    }

    override fun clearOutput(wait: Boolean) {
        System.out.flush()
        System.err.flush()
        target?.clearOutput(wait)
    }

    override fun register(type: Class<*>, renderer: (Any) -> Any?, caller: StackTraceElement?) {
        add(Renderer(type, renderer, caller?.let(locate) ?: "a snippet"))
    }

    /** Adds [renderer], tried before those of its priority registered earlier. */
    fun add(renderer: ValueRenderer) {
        synchronized(renderers) {
            val at = renderers.indexOfFirst { it.priority <= renderer.priority }
            if (at < 0) renderers.add(renderer) else renderers.add(at, renderer)
        }
    }

    fun remove(renderer: ValueRenderer) {
        renderers.remove(renderer)
    }

    /** The renderers in the order they are tried. */
    fun registered(): List<ValueRenderer> = renderers.toList()

    /** The bundle of a snippet's [value], when it has one (not for Unit); null when rendering it threw. */
    fun valueBundle(value: Any?): MimeBundle? {
        if (value === Unit) return null
        return try {
            bundleOf(value)
        } catch (e: Throwable) {
            if (e is VirtualMachineError && e !is StackOverflowError) throw e
            null
        }
    }

    /**
     * The bundle of [value]: a display value's own; else that of what the first matching renderer of a cell returns
     * (repeated, at most [MAX_STEPS] times); a library value the engine knows (a DataFrame, a lets-plot figure:
     * [LibraryRenderers]), whose offline output wins over a library integration's; a library integration's renderer;
     * a JetBrains `Renderable`'s rendering; a `BufferedImage` as PNG; else its text. Its `text/plain` is the value's
     * text unless the value's rendering gave one itself.
     */
    fun bundleOf(value: Any?): MimeBundle {
        var current = value
        var rendered = false // by a renderer of the session
        repeat(MAX_STEPS) {
            val shown = current ?: return plain(value, null)
            finished(shown)?.let { return if (rendered && !it.explicitPlain) it.withPlain(plainOf(value)) else it }
            val byCell = renderers.firstOrNull { !it.fromLibrary && accepts(it, shown) }
            val builtIn = if (byCell == null) LibraryRenderers.find(shown) else null
            if (builtIn != null) return libraryBundle(builtIn, value)
            val renderer = byCell ?: renderers.firstOrNull { it.fromLibrary && accepts(it, shown) }
            if (renderer != null) {
                current = rendering(renderer, shown).getOrElse { return plain(value, null) }
                rendered = true
                return@repeat
            }
            val jetBrains = jetBrainsRendering(shown).getOrElse { return plain(value, null) }
            if (jetBrains != null) {
                current = jetBrains
                return@repeat
            }
            if (shown is BufferedImage) return bufferedImage(shown)
            return plain(value, if (rendered) shown else null)
        }
        notice(
            "rendering ${SnippetNames.className(value?.javaClass?.name.orEmpty())} did not end after $MAX_STEPS renderers; shown as text",
        )
        return plain(value, null)
    }

    /**
     * What the renderers make of [value] short of a bundle (JetBrains' `RenderersProcessor.renderValue`): the value
     * after the renderers of cells and libraries applied, until none applies or one gave a display result.
     */
    fun rendered(value: Any?): Any? {
        var current = value
        repeat(MAX_STEPS) {
            val shown = current ?: return null
            if (shown is DisplayResult) return shown
            val renderer = renderers.firstOrNull { accepts(it, shown) } ?: return shown
            current = rendering(renderer, shown).getOrElse { return value }
        }
        return current
    }

    /** Whether [renderer] takes [value]; a failing check counts as no (a library's check must not lose the value). */
    private fun accepts(renderer: ValueRenderer, value: Any): Boolean = try {
        renderer.accepts(value)
    } catch (e: Throwable) {
        if (e is VirtualMachineError && e !is StackOverflowError) throw e
        false
    }

    // A failing rendering is told on stderr and the value shown as text: one bad renderer must not lose the cell's value.

    /** What the session's [renderer] makes of [shown]; a failure when it threw (told already). */
    private fun rendering(renderer: ValueRenderer, shown: Any): Result<Any?> = try {
        Result.success(renderer.render(shown))
    } catch (e: Throwable) {
        if (e is VirtualMachineError && e !is StackOverflowError) throw e
        notice("${renderer.origin} threw ${SnippetNames.header(e)}; shown as text")
        Result.failure(e)
    }

    /** The JetBrains `Renderable` rendering of [shown], null when it is none; a failure when it threw (told already). */
    private fun jetBrainsRendering(shown: Any): Result<Any?> = try {
        val notebook = notebook
        Result.success(if (shown is Renderable && shown !is DisplayResult && notebook != null) shown.render(notebook) else null)
    } catch (e: Throwable) {
        if (e is VirtualMachineError && e !is StackOverflowError) throw e
        notice("render(notebook) of ${SnippetNames.className(shown.javaClass.name)} threw ${SnippetNames.header(e)}; shown as text")
        Result.failure(e)
    }

    /** The bundle a library renderer the engine knows makes, or [value] as text when it threw. */
    private fun libraryBundle(library: LibraryRenderers.Match, value: Any?): MimeBundle = try {
        library.render()
    } catch (e: Throwable) {
        if (e is VirtualMachineError && e !is StackOverflowError) throw e
        notice("the built-in ${library.renderer.library} renderer threw ${SnippetNames.header(e)}; shown as text")
        plain(value, null)
    }

    /** The bundle of a value that is shown as it is. */
    private fun finished(value: Any): MimeBundle? = when (value) {
        is DisplayResult -> DisplayBundles.of(value)
        is Image -> value.bundle()
        else -> null
    }

    /** Text only: [rendering]'s when a renderer gave a plain value, else [value]'s. */
    private fun plain(value: Any?, rendering: Any?): MimeBundle = MimeBundle(mapOf(MimeBundle.PLAIN to plainOf(rendering ?: value)))

    /** The text of [value]: by the session's text renderers, else its `toString()`. */
    private fun plainOf(value: Any?): String {
        val byRenderers = textRenderer?.let { render ->
            try {
                render(value)
            } catch (e: Throwable) {
                if (e is VirtualMachineError && e !is StackOverflowError) throw e
                notice("a text renderer threw ${SnippetNames.header(e)}; shown by toString()")
                null
            }
        }
        return byRenderers ?: textOf(value)
    }

    private fun bufferedImage(image: BufferedImage): MimeBundle {
        val out = ByteArrayOutputStream()
        ImageIO.write(image, "png", out)
        val bytes = out.toByteArray()
        val text = "BufferedImage ${image.width}×${image.height} px, image/png ${MimeBundle.byteSize(bytes.size.toLong())}"
        return MimeBundle(
            linkedMapOf(MimeBundle.PLAIN to text, "image/png" to Base64.getEncoder().encodeToString(bytes)),
            mapOf("image/png" to mapOf("width" to image.width, "height" to image.height)),
        )
    }

    private fun notice(text: String) {
        System.err.println("[kotlin-llm] $text")
    }

    companion object {
        /** Renderers applied to one value at most: a renderer returning its own type would loop forever. */
        const val MAX_STEPS: Int = 8

        /** A value's `toString()`; a failing one described, as the host describes a cell value's. */
        fun textOf(value: Any?): String = try {
            value.toString()
        } catch (e: Throwable) {
            if (e is VirtualMachineError && e !is StackOverflowError) throw e
            val failure = runCatching { SnippetNames.header(e) }.getOrElse { e.javaClass.name }
            "<toString() of ${SnippetNames.className(value?.javaClass?.name.orEmpty())} failed: $failure>"
        }
    }
}
