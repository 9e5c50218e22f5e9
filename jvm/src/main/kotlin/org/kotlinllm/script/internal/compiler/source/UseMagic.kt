package org.kotlinllm.script.internal.compiler.source

import org.kotlinllm.script.dependencies.DeclaredValue
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.internal.libraries.Libraries

/**
 * `%use` as Kotlin notebooks write it (`%use dataframe, lets-plot(4.5.0)`, `%use kandy(v=0.8.0)`): the line loads the
 * libraries it names, as `@file:DependsOn` of their Maven coordinates would, and gives this and the later cells their
 * usual default imports ([Libraries], the kernel's catalogue, says which it knows). `%useLatestDescriptors` is
 * accepted with a notice: the list of libraries is built in.
 */
internal object UseMagic {

    /** The names `%use` knows, as its error lists them. */
    val names: Set<String> get() = Libraries.used.keys

    private val useLine = Regex("""^[ \t]*%(use|useLatestDescriptors)\b(.*)$""")

    /** One library a `%use` line names and knows: its [name] at [range], its artifacts to resolve and its imports. */
    class Library(val name: String, val range: SourceRange, val dependencies: List<DeclaredValue>, val imports: List<String>)

    /** What the `%use` lines of a snippet load; [code] is the snippet with those lines blanked (its offsets kept). */
    class Used(val code: String, val libraries: List<Library>, val diagnostics: List<Diagnostic>) {
        val dependencies: List<DeclaredValue> get() = libraries.flatMap { it.dependencies }
        val imports: List<String> get() = libraries.flatMap { it.imports }.distinct()
    }

    /** The `%use` lines of [parsed] at its top level; null when it has none. */
    fun read(parsed: ParsedSnippet): Used? {
        if (parsed.syntaxErrors.isEmpty()) return null // valid Kotlin is never a magic
        val source = parsed.source
        val code = StringBuilder(source.text)
        val used = mutableListOf<Library>()
        val diagnostics = mutableListOf<Diagnostic>()
        var found = false
        for (lineNumber in 1..source.lineCount) {
            val line = source.line(lineNumber) ?: continue
            val match = useLine.find(line) ?: continue
            val lineStart = source.offset(lineNumber, 1)
            val percent = lineStart + line.indexOf('%')
            if (!NotebookMagics.atTopLevel(parsed.file, percent)) continue
            found = true
            for (i in lineStart until lineStart + line.length) code.setCharAt(i, ' ')
            val magicRange = source.range(percent, lineStart + line.trimEnd().length)
            if (match.groupValues[1] == "useLatestDescriptors") {
                diagnostics += Diagnostic(Severity.WARNING, LATEST_DESCRIPTORS, magicRange)
                continue
            }
            val argumentsStart = lineStart + (match.groups[2]?.range?.first ?: line.length)
            val requests = requests(match.groupValues[2].substringBefore("//"), argumentsStart)
            if (requests.isEmpty()) diagnostics += Diagnostic(Severity.ERROR, NOTHING_NAMED, magicRange, ANOTHER_LIBRARY)
            for (request in requests) {
                val range = source.range(request.start, request.end)
                val known = Libraries.used[request.name]
                val imports = known?.use?.imports
                if (known == null || imports == null) {
                    diagnostics += Diagnostic(Severity.ERROR, unknown(request.name), range, ANOTHER_LIBRARY)
                    continue
                }
                val artifacts = known.coordinates.map { coordinates ->
                    DeclaredValue(if (request.version == null) coordinates else "$coordinates:${request.version}", range)
                }
                used += Library(request.name, range, artifacts, imports)
            }
        }
        return if (found) Used(code.toString(), used, diagnostics) else null
    }

    /** One library of a `%use` line: its name, the version asked for, and where the name is ([start], [end]: offsets). */
    private class Request(val name: String, val version: String?, val start: Int, val end: Int)

    /** `a, b(1.0) c(v=2.0)`: libraries separated by commas or spaces, each with optional arguments in parentheses. */
    private fun requests(arguments: String, offset: Int): List<Request> {
        val found = mutableListOf<Request>()
        var i = 0
        while (i < arguments.length) {
            if (arguments[i] == ',' || arguments[i].isWhitespace()) {
                i++
                continue
            }
            val start = i
            while (i < arguments.length && arguments[i] != '(' && arguments[i] != ',' && !arguments[i].isWhitespace()) i++
            val name = arguments.substring(start, i)
            var version: String? = null
            var end = i
            var j = i
            while (j < arguments.length && arguments[j].isWhitespace()) j++
            if (j < arguments.length && arguments[j] == '(') {
                val close = arguments.indexOf(')', j).let { if (it < 0) arguments.length else it }
                version = version(arguments.substring(j + 1, close))
                i = minOf(close + 1, arguments.length)
                end = i
            }
            found += Request(name, version, offset + start, offset + end)
        }
        return found
    }

    /** The version among a library's arguments: the first positional one, or `v=`; others are the library's options. */
    private fun version(arguments: String): String? {
        val parts = arguments.split(',').map { it.trim() }.filter { it.isNotEmpty() }
        parts.firstOrNull { it.startsWith("v=") || it.startsWith("v =") }?.let { return it.substringAfter('=').trim().ifEmpty { null } }
        return parts.firstOrNull { '=' !in it }
    }

    /** The note of the libraries of a failed snippet's `%use` lines that loaded all the same. */
    fun loadedAlone(
        names: List<String>,
    ): String = "`%use ${names.joinToString(", ")}` loaded for the next cells; nothing else of this cell ran"

    private fun unknown(name: String): String =
        "`%use $name`: unknown library '$name'; this kernel's %use knows ${names.joinToString(", ")}"

    private const val ANOTHER_LIBRARY: String =
        "for another library write @file:DependsOn(\"group:artifact:version\") with the Maven coordinates of its artifact"

    private const val NOTHING_NAMED: String = "`%use` names no library: write `%use dataframe`, `%use lets-plot(4.5.0)`, …"

    private const val LATEST_DESCRIPTORS: String =
        "`%useLatestDescriptors`: nothing to update, this kernel's list of %use libraries is built in"
}
