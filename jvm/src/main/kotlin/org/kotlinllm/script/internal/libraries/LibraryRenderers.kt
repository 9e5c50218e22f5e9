package org.kotlinllm.script.internal.libraries

import org.kotlinllm.script.runtime.MimeBundle

/** The built-in renderer of one library's values, found by the names of the classes a value is. */
internal interface LibraryRenderer {
    /** The library, as a notice names it: `DataFrame`, `lets-plot`. */
    val library: String

    /** The class of [hierarchy] (a value's classes and interfaces by name) this renderer renders the value by, if any. */
    fun match(hierarchy: Map<String, Class<*>>): Class<*>?

    /** The bundle of [value], which is a [type] (what [match] gave); throws what the library threw. */
    fun render(value: Any, type: Class<*>): MimeBundle
}

/**
 * Values of the libraries the engine knows, rendered as a notebook shows them, with no network and no script that an
 * untrusted notebook would need: DataFrame's frames as HTML tables ([DataFrames]), lets-plot's figures as SVG
 * ([LetsPlotFigures]). The libraries are snippet dependencies, not on the engine's classpath: a value is matched by
 * the names in its own class hierarchy, and the library is called by reflection through that class's loader.
 */
internal object LibraryRenderers {
    private val renderers: List<LibraryRenderer> get() = Libraries.renderers

    /** A value and the renderer that knows it. */
    class Match(val renderer: LibraryRenderer, private val value: Any, private val type: Class<*>) {
        fun render(): MimeBundle = renderer.render(value, type)
    }

    /** The renderer of [value], when a built-in one knows it; else null. */
    fun find(value: Any): Match? {
        // no library's class is loaded by the bootstrap loader (strings, numbers, the JDK's collections)
        if (value.javaClass.classLoader == null) return null
        val hierarchy = LibraryCalls.hierarchy(value.javaClass)
        for (renderer in renderers) {
            val type = renderer.match(hierarchy) ?: continue
            return Match(renderer, value, type)
        }
        return null
    }
}
