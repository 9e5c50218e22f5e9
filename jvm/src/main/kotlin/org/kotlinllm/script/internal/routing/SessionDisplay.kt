package org.kotlinllm.script.internal.routing

import org.kotlinllm.script.internal.libraries.LibraryRenderers
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.runtime.DisplaySink
import org.kotlinllm.script.runtime.Image
import org.kotlinllm.script.runtime.MimeBundle
import org.kotlinllm.script.runtime.MimeTypedResult
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

/**
 * The display of one session: its renderers (the one registered last tried first) and how a value becomes a
 * [MimeBundle]. Without a [target] (a session that prints to the process's streams), a display prints its text.
 */
internal class SessionDisplay(
    private val target: DisplayTarget?,
    /** A snippet's frame as `snippetN.kts:line`, inlined code mapped to the line that called it. */
    private val locate: (StackTraceElement) -> String = { "${it.fileName}:${it.lineNumber}" },
) : DisplaySink {

    private class Renderer(val type: Class<*>, val function: (Any) -> Any?, val where: String)

    /** Most recent first. */
    private val renderers = CopyOnWriteArrayList<Renderer>()

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
        renderers.add(0, Renderer(type, renderer, caller?.let(locate) ?: "a snippet"))
    }

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
     * The bundle of [value]: a display value's own; else that of what the first matching renderer returns (repeated,
     * at most [MAX_STEPS] times); a JetBrains `Renderable`'s rendering; a library value the engine knows (a DataFrame,
     * a lets-plot figure: [LibraryRenderers]); a `BufferedImage` as PNG; else its `toString()`. Its `text/plain` is the
     * value's `toString()` unless the value's rendering gave one itself.
     */
    fun bundleOf(value: Any?): MimeBundle {
        var current = value
        var rendered = false // by a renderer of the session
        repeat(MAX_STEPS) {
            val shown = current ?: return plain(value, null)
            finished(shown)?.let { return if (rendered && !it.explicitPlain) it.withPlain(textOf(value)) else it }
            val renderer = renderers.firstOrNull { it.type.isInstance(shown) }
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
            LibraryRenderers.find(shown)?.let { return libraryBundle(it, value) }
            if (shown is BufferedImage) return bufferedImage(shown)
            return plain(value, if (rendered) shown else null)
        }
        notice(
            "rendering ${SnippetNames.className(value?.javaClass?.name.orEmpty())} did not end after $MAX_STEPS renderers; shown as text",
        )
        return plain(value, null)
    }

    // A failing rendering is told on stderr and the value shown as text: one bad renderer must not lose the cell's value.

    /** What the session's [renderer] makes of [shown]; a failure when it threw (told already). */
    private fun rendering(renderer: Renderer, shown: Any): Result<Any?> = try {
        Result.success(renderer.function(shown))
    } catch (e: Throwable) {
        if (e is VirtualMachineError && e !is StackOverflowError) throw e
        notice(
            "render<${renderer.type.simpleName}> registered by ${renderer.where} threw ${SnippetNames.header(
                e,
            )}; shown as text",
        )
        Result.failure(e)
    }

    /** The JetBrains `Renderable` rendering of [shown], null when it is none; a failure when it threw (told already). */
    private fun jetBrainsRendering(shown: Any): Result<Any?> = try {
        Result.success(JupyterApiInterop.render(shown))
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
        is MimeTypedResult -> value.bundle()
        is Image -> value.bundle()
        else -> JupyterApiInterop.displayResult(value)
    }

    /** Text only: [rendering]'s when a renderer gave a plain value, else [value]'s. */
    private fun plain(value: Any?, rendering: Any?): MimeBundle = MimeBundle(mapOf(MimeBundle.PLAIN to textOf(rendering ?: value)))

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
