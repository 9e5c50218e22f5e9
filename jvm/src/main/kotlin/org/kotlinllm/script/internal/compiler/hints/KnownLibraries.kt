package org.kotlinllm.script.internal.compiler.hints

import org.kotlinllm.script.internal.libraries.Libraries
import org.kotlinllm.script.internal.libraries.Library

/**
 * Libraries agents reach for, by the packages they bring: an import of one of these packages, or a use of one of
 * their best-known names, that does not resolve gets a hint naming the `@file:DependsOn` to add. Their table is the
 * kernel's catalogue of libraries ([Libraries]): KnownLibrariesTest resolves every entry and imports each of its names.
 */
internal object KnownLibraries {

    /** Each artifact a hint names: its coordinates (version-less: the latest stable), root package and best-known names. */
    val all: List<Library.Hint> get() = Libraries.hints

    /**
     * The library whose package [path] (`io.ktor.client.request`) is or lies in, when the part of it that did not
     * resolve ([unresolvedSegment], 0-based) is within that package: a library on the classpath resolves its own
     * package, so only an absent one is named. The longest package wins (ktor's CIO engine over its client).
     */
    fun forPackage(path: String, unresolvedSegment: Int): Library.Hint? {
        val segments = path.split('.')
        return all.filter { library ->
            val root = library.packageName.split('.')
            segments.size >= root.size && segments.subList(0, root.size) == root && unresolvedSegment < root.size
        }.maxByOrNull { it.packageName.length }
    }

    /** The library one of whose best-known names is [simpleName], with that name's import. */
    fun forName(simpleName: String): Pair<Library.Hint, String>? = all.firstNotNullOfOrNull { library ->
        library.names.firstOrNull { it.substringAfterLast('.') == simpleName }?.let { library to it }
    }
}
