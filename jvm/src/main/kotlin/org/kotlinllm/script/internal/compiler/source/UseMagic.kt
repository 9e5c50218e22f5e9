package org.kotlinllm.script.internal.compiler.source

import org.kotlinllm.script.dependencies.DeclaredValue
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.diagnostics.SourceText
import org.kotlinllm.script.internal.jupyterapi.descriptor.DescriptorOption
import org.kotlinllm.script.internal.libraries.Libraries

/**
 * `%use` as Kotlin notebooks write it: the line names, separated by commas (or spaces), libraries of the kernel's
 * catalogue ([Libraries]) with their options (`%use dataframe, lets-plot(4.5.0)`, `%use kandy(v=0.8.0)`), which load
 * as `@file:DependsOn` of their Maven coordinates would, with their usual default imports for this and the later cells;
 * and descriptors in the JSON format of JetBrains' kernel, by file (`@file[lib.json](a=1)`, `lib@dir[libs]`) or URL
 * (`@url[https://…]`, the URL alone), which the session reads and applies. The forms JetBrains' kernel resolves
 * against its GitHub list of descriptors (`lib@<git ref>`) are not fetched here: a known library loads the
 * catalogue's, another is an error saying so. `%useLatestDescriptors` is accepted with a notice.
 */
internal object UseMagic {

    /** The names `%use` knows, as its error lists them. */
    val names: Set<String> get() = Libraries.used.keys

    private val useLine = Regex("""^[ \t]*%(use|useLatestDescriptors)\b(.*)$""")

    /** One thing a `%use` line names: [text] as written (options included) at [range], with its [options]. */
    sealed class Request(val text: String, val range: SourceRange, val options: List<DescriptorOption>)

    /**
     * A library of the catalogue: its artifacts to resolve (at the version asked for: option `v`, else the first
     * positional one) and its imports; [options] holds the others, which the catalogue does not read.
     */
    class Library(
        val name: String,
        range: SourceRange,
        val dependencies: List<DeclaredValue>,
        val imports: List<String>,
        options: List<DescriptorOption> = emptyList(),
        text: String = name,
    ) : Request(text, range, options)

    /** A descriptor file, [path] relative to the kernel's working directory: `@file[lib.json]`, `lib@dir[libs]`. */
    class DescriptorFile(val path: String, text: String, range: SourceRange, options: List<DescriptorOption>) :
        Request(text, range, options)

    /** A descriptor at [url]: `@url[https://…/lib.json]`, or `https://…/lib.json` alone. */
    class DescriptorUrl(val url: String, text: String, range: SourceRange, options: List<DescriptorOption>) :
        Request(text, range, options)

    /** What the `%use` lines of a snippet load, in order; [code] is the snippet with those lines blanked (its offsets kept). */
    class Used(val code: String, val requests: List<Request>, val diagnostics: List<Diagnostic>) {
        val libraries: List<Library> get() = requests.filterIsInstance<Library>()
        val descriptors: List<Request> get() = requests.filter { it !is Library }
        val dependencies: List<DeclaredValue> get() = libraries.flatMap { it.dependencies }
        val imports: List<String> get() = libraries.flatMap { it.imports }.distinct()
    }

    /** What one `%use` line names, and its notes and errors. */
    class Line(val requests: List<Request>, val diagnostics: List<Diagnostic>)

    /** The `%use` lines of [parsed] at its top level; null when it has none. */
    fun read(parsed: ParsedSnippet): Used? {
        if (parsed.syntaxErrors.isEmpty()) return null // valid Kotlin is never a magic
        val source = parsed.source
        val code = StringBuilder(source.text)
        val requests = mutableListOf<Request>()
        val diagnostics = mutableListOf<Diagnostic>()
        var found = false
        for (lineNumber in 1..source.lineCount) {
            val line = source.line(lineNumber) ?: continue
            if (!useLine.matches(line)) continue
            val lineStart = source.offset(lineNumber, 1)
            if (!NotebookMagics.atTopLevel(parsed.file, lineStart + line.indexOf('%'))) continue
            found = true
            for (i in lineStart until lineStart + line.length) code.setCharAt(i, ' ')
            val read = readLine(source, lineNumber) ?: continue
            requests += read.requests
            diagnostics += read.diagnostics
        }
        return if (found) Used(code.toString(), requests, diagnostics) else null
    }

    /** The `%use` (or `%useLatestDescriptors`) line [lineNumber] of [source]; null when it is none. */
    fun readLine(source: SourceText, lineNumber: Int): Line? {
        val line = source.line(lineNumber) ?: return null
        val match = useLine.find(line) ?: return null
        val lineStart = source.offset(lineNumber, 1)
        val magicRange = source.range(lineStart + line.indexOf('%'), lineStart + line.trimEnd().length)
        if (match.groupValues[1] == "useLatestDescriptors") {
            return Line(emptyList(), listOf(Diagnostic(Severity.WARNING, LATEST_DESCRIPTORS, magicRange)))
        }
        val argumentsStart = lineStart + (match.groups[2]?.range?.first ?: line.length)
        val items = UseArguments.items(match.groupValues[2])
        if (items.isEmpty()) return Line(emptyList(), listOf(Diagnostic(Severity.ERROR, NOTHING_NAMED, magicRange, ANOTHER_LIBRARY)))
        val requests = mutableListOf<Request>()
        val diagnostics = mutableListOf<Diagnostic>()
        for (item in items) {
            val (request, note) = request(item, source.range(argumentsStart + item.start, argumentsStart + item.end))
            request?.let { requests += it }
            note?.let { diagnostics += it }
        }
        return Line(requests, diagnostics)
    }

    /** What [item] names, and the note or error it gets. */
    private fun request(item: UseArguments.Item, range: SourceRange): Pair<Request?, Diagnostic?> {
        val head = item.head
        if (isUrl(head)) return DescriptorUrl(head, item.text, range, item.options) to null
        val at = head.indexOf('@')
        if (at < 0) return known(head, item, range)?.let { it to null } ?: (null to unknownLibrary(head, range))
        val name = head.substring(0, at)
        val info = head.substring(at + 1)
        val kind = info.substringBefore('[')
        val argument = if ('[' in info) UseArguments.bracketed(info.substringAfter('[').removeSuffix("]")) else null
        fun error(message: String) = null to Diagnostic(Severity.ERROR, "`%use ${item.text}`: $message", range)
        return when {
            info.isBlank() || kind == "classpath" -> known(name, item, range)?.let { it to null } ?: (null to unknownLibrary(name, range))
            kind == "file" -> argument?.let { DescriptorFile(it, item.text, range, item.options) to null } ?: error(NO_FILE)
            kind == "url" -> argument?.let { DescriptorUrl(it, item.text, range, item.options) to null } ?: error(NO_URL)
            kind == "dir" -> when {
                argument == null -> error(NO_DIRECTORY)
                name.isEmpty() -> error(
                    "name the library whose descriptor the directory holds: `%use lib@dir[$argument]` reads $argument/lib.json",
                )
                else -> DescriptorFile("$argument/$name.json", item.text, range, item.options) to null
            }
            else -> reference(name, if (kind == "ref") argument.orEmpty() else info, item, range)
        }
    }

    /**
     * `lib@<ref>`: JetBrains' kernel reads `lib`'s descriptor at that git reference of its GitHub list, or, failing
     * that, takes the reference for a file or URL; here a file (`….json`) or URL is read, and a reference is not fetched.
     */
    private fun reference(name: String, ref: String, item: UseArguments.Item, range: SourceRange): Pair<Request?, Diagnostic?> {
        if (isUrl(ref)) return DescriptorUrl(ref, item.text, range, item.options) to null
        if (ref.endsWith(".json")) return DescriptorFile(ref, item.text, range, item.options) to null
        val notFetched = "`%use ${item.text}`: this kernel does not fetch descriptors at a git reference ('$ref')"
        known(name, item, range)?.let { return it to Diagnostic(Severity.WARNING, "$notFetched; it loads its own $name", range) }
        val hint = "$ANOTHER_LIBRARY, or save its descriptor and write %use @file[${name.ifEmpty { "lib" }}.json]"
        return null to Diagnostic(Severity.ERROR, "$notFetched, and its %use knows ${names.joinToString(", ")}", range, hint)
    }

    /** The library of the catalogue named [name], at the version [item]'s options ask for; null if `%use` knows none. */
    private fun known(name: String, item: UseArguments.Item, range: SourceRange): Library? {
        val library = Libraries.used[name] ?: return null
        val imports = library.use?.imports ?: return null
        val versionOption = item.options.firstOrNull { it.name == "v" } ?: item.options.firstOrNull { it.name == null }
        val version = versionOption?.value?.ifEmpty { null }
        val artifacts = library.coordinates.map { DeclaredValue(if (version == null) it else "$it:$version", range) }
        return Library(name, range, artifacts, imports, item.options.filterNot { it === versionOption }, item.text)
    }

    private fun isUrl(text: String): Boolean = text.startsWith("https://") || text.startsWith("http://")

    private fun unknownLibrary(name: String, range: SourceRange): Diagnostic {
        val hint = if (name.endsWith(".json")) "for a descriptor file write %use @file[$name]" else ANOTHER_LIBRARY
        return Diagnostic(Severity.ERROR, unknown(name), range, hint)
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

    private const val NO_FILE: String = "name the descriptor file: `%use @file[lib.json]`"

    private const val NO_URL: String = "name the descriptor's URL: `%use @url[https://…/lib.json]`"

    private const val NO_DIRECTORY: String = "name the directory: `%use lib@dir[libs]` reads libs/lib.json"

    private const val LATEST_DESCRIPTORS: String =
        "`%useLatestDescriptors`: nothing to update, this kernel's list of %use libraries is built in"
}

/**
 * The arguments of a `%use` line as JetBrains' kernel splits them: items separated by commas (here spaces too) outside
 * brackets and quotes, each a head (`dataframe`, `@file[my lib.json]`, `lib@ref[abc]`) with options in parentheses
 * (`(0.15.0, enableExperimentalCsv=true, title="a, b")`); `//` after a space starts a comment.
 */
internal object UseArguments {

    /** An item at [start] until [end] (offsets in the arguments), its [head] and [options], [text] as written. */
    class Item(val start: Int, val end: Int, val head: String, val options: List<DescriptorOption>, val text: String)

    private val optionName = Regex("""[\p{Alnum}._-]+""")

    fun items(arguments: String): List<Item> {
        val found = mutableListOf<Item>()
        var i = 0
        while (i < arguments.length) {
            val c = arguments[i]
            if (c == ',' || c.isWhitespace()) {
                i++
                continue
            }
            if (arguments.startsWith("//", i)) break // after a separator: a comment
            val start = i
            var square = 0
            while (i < arguments.length) {
                val d = arguments[i]
                if (d == '[') square++ else if (d == ']' && square > 0) square--
                if (square == 0 && (d == '(' || d == ',' || d.isWhitespace())) break
                if (square == 0 && arguments.startsWith("//", i) && arguments[i - 1] != ':') break // a comment, not a URL's
                i++
            }
            val head = arguments.substring(start, i)
            var j = i
            while (j < arguments.length && arguments[j].isWhitespace()) j++
            var options = emptyList<DescriptorOption>()
            if (j < arguments.length && arguments[j] == '(') {
                val close = closing(arguments, j)
                options = options(arguments.substring(j + 1, minOf(close, arguments.length)))
                i = minOf(close + 1, arguments.length)
            }
            found += Item(start, i, head, options, arguments.substring(start, i))
        }
        return found
    }

    /** The `)` closing the `(` at [open], past quoted strings and nested parentheses; the end if none does. */
    private fun closing(text: String, open: Int): Int {
        var depth = 0
        var i = open
        while (i < text.length) {
            when (text[i]) {
                '"' -> i = quoteEnd(text, i)
                '(' -> depth++
                ')' -> if (--depth == 0) return i
            }
            i++
        }
        return text.length
    }

    /** The index of the `"` closing the string opening at [open] (or the last index). */
    private fun quoteEnd(text: String, open: Int): Int {
        var i = open + 1
        while (i < text.length && text[i] != '"') i += if (text[i] == '\\') 2 else 1
        return minOf(i, text.length - 1)
    }

    /** `4.5.0, v=1, title="a, b"`: positional and named options; blank ones are dropped, as in JetBrains' kernel. */
    fun options(text: String): List<DescriptorOption> {
        val parts = mutableListOf<String>()
        var start = 0
        var i = 0
        while (i <= text.length) {
            if (i == text.length || text[i] == ',') {
                parts += text.substring(start, i)
                start = i + 1
            } else if (text[i] == '"') {
                i = quoteEnd(text, i)
            }
            i++
        }
        return parts.map { it.trim() }.filter { it.isNotEmpty() }.map { part ->
            val equals = part.indexOf('=')
            val name = if (equals > 0) part.substring(0, equals).trim().takeIf { optionName.matches(it) } else null
            DescriptorOption(name, unquoted(if (name == null) part else part.substring(equals + 1).trim()))
        }
    }

    /** The one argument in brackets (`file[lib.json]`, `url[https://a/b,c.json]`, `file[path="my lib.json"]`); null if blank. */
    fun bracketed(text: String): String? {
        val value = text.trim()
        val named = bracketName.matchAt(value, 0)?.let { value.substring(it.range.last + 1).trim() } ?: value
        return unquoted(named).ifBlank { null }
    }

    private val bracketName = Regex("""(path|url|dir|ref)\s*=""")

    private fun unquoted(value: String): String =
        if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
            value.substring(1, value.length - 1).replace(Regex("""\\(.)"""), "$1")
        } else {
            value
        }
}
