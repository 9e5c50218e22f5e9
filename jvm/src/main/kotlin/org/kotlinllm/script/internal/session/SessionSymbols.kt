package org.kotlinllm.script.internal.session

import org.kotlinllm.script.internal.compiler.DeclaredTypes
import org.kotlinllm.script.internal.compiler.source.DeclaredName
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet
import org.kotlinllm.script.runtime.DeclarationListing
import java.lang.reflect.Modifier
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/**
 * What the snippets of a session declared, for completion, inspection and `vars()`: the declarations by name (the
 * latest wins, like for the snippets) with their signatures as the compiler resolved them ([DeclaredTypes]) and,
 * for properties, where to read their current value.
 */
internal class SessionSymbols : DeclarationListing {

    private class Symbol(val declaration: DeclaredName, val snippetClass: String, val signatures: List<String>, val order: Long)

    /** The snippet being evaluated, whose declarations its own code sees too: its class and their signatures. */
    private class Running(val parsed: ParsedSnippet, val className: String?, val signatures: Map<String, List<String>>)

    private val symbols = ConcurrentHashMap<String, Symbol>()
    private val order = AtomicLong()

    @Volatile
    private var running: Running? = null

    @Volatile
    private var classLoader: ClassLoader? = null

    /** Called before [parsed], compiled as [className], is evaluated; [signatures] by name are read if it declares something. */
    fun evaluating(parsed: ParsedSnippet, className: String?, signatures: () -> Map<String, List<String>>) {
        running = if (parsed.declarations.isEmpty()) null else Running(parsed, className, signatures())
    }

    /** Records what [parsed] declared once it was evaluated as [snippetClass]. */
    fun declared(parsed: ParsedSnippet, snippetClass: Class<*>?) {
        val resolved = running?.takeIf { it.parsed === parsed }?.signatures.orEmpty()
        running = null
        snippetClass?.classLoader?.let { classLoader = it }
        val className = snippetClass?.name ?: return
        for (declaration in parsed.declarations) {
            val signature = resolved[declaration.name] ?: listOf(declaration.header)
            // a redeclared name moves to the end, where the newest declaration is
            symbols.remove(declaration.name)
            symbols[declaration.name] = Symbol(declaration, className, signature, order.incrementAndGet())
        }
    }

    /**
     * The property [name], redeclared by a hidden snippet of the engine's compiled as [snippetClass] (a frame given
     * its column accessors): the user's declaration, its value read from there from now on.
     */
    fun redeclared(name: String, snippetClass: Class<*>) {
        symbols.computeIfPresent(name) { _, symbol -> Symbol(symbol.declaration, snippetClass.name, symbol.signatures, symbol.order) }
        snippetClass.classLoader?.let { classLoader = it }
    }

    /** The declared signature of [name] as the compiler resolved it, e.g. `val df: DataFrame<*>`. */
    fun signature(name: String): String? = symbols[name]?.signatures?.firstOrNull()

    fun names(): Set<String> = symbols.keys

    fun declaration(name: String): DeclaredName? = symbols[name]?.declaration

    /**
     * The signatures of the declarations visible now in the order of their newest declarations, a property's with
     * its value. While a snippet runs, its own declarations come last: its properties above the calling line (on
     * the session's thread) with their values, its functions and classes.
     */
    override fun listing(): List<String> {
        val current = running
        val visible = current?.let(::visibleOwn).orEmpty()
        val earlier = symbols.entries.filter { (name, _) -> visible.none { it.name == name } }.sortedBy { it.value.order }
            .flatMap { (name, symbol) -> lines(symbol.declaration, symbol.signatures) { value(name) } }
        if (current == null) return earlier
        val loader = Thread.currentThread().contextClassLoader
        return earlier + visible.flatMap { declaration ->
            lines(declaration, current.signatures[declaration.name] ?: listOf(declaration.header)) {
                runCatching {
                    val snippetClass = Class.forName(current.className, false, loader)
                    snippetClass.getDeclaredField(declaration.name).also { it.isAccessible = true }.get(null)
                }
            }
        }
    }

    /**
     * The declarations of the running snippet its calling code sees, the last of each name: all but the properties
     * not above the calling line (not set yet), which is known on the snippet's own frames only.
     */
    private fun visibleOwn(snippet: Running): List<DeclaredName> {
        val callingLine = Thread.currentThread().stackTrace.firstOrNull { it.className == snippet.className }?.lineNumber
        return snippet.parsed.declarations
            .filter { it.kind != DeclaredName.Kind.PROPERTY || (callingLine != null && it.range.endLine < callingLine) }
            .asReversed().distinctBy { it.name }.asReversed()
    }

    private fun lines(declaration: DeclaredName, signatures: List<String>, reader: () -> Result<Any?>?): List<String> {
        if (declaration.kind != DeclaredName.Kind.PROPERTY) return signatures
        val signature = signatures.first()
        val read = reader()
        val value = read?.getOrNull()
        // a property without a field (a getter, a delegate) has no value to show; a lateinit one not set holds null;
        // a lambda's text is its JVM class, which the type says better
        if (read == null || read.isFailure || (value == null && signature.startsWith("lateinit ")) || value is Function<*>) {
            return listOf(signature)
        }
        return listOf("$signature = ${ValuePreview.of(value)}")
    }

    /** The properties declared so far with their current values (those that can be read), for the advice under an OutOfMemoryError. */
    fun values(): List<Pair<String, Any?>> = symbols.entries
        .filter { it.value.declaration.kind == DeclaredName.Kind.PROPERTY }
        .mapNotNull { (name, _) -> value(name)?.getOrNull()?.let { name to it } }

    /** The current value of the property [name] of an earlier snippet, if it has one. */
    fun value(name: String): Result<Any?>? {
        val symbol = symbols[name] ?: return null
        val loader = classLoader ?: return null
        return runCatching {
            val type = Class.forName(symbol.snippetClass, false, loader)
            when (symbol.declaration.kind) {
                DeclaredName.Kind.PROPERTY -> type.getDeclaredField(name).also { it.isAccessible = true }.get(null)
                DeclaredName.Kind.CLASS -> Class.forName("${symbol.snippetClass}$$name", false, loader)
                    .takeIf { nested -> nested.declaredFields.any { it.name == "INSTANCE" && Modifier.isStatic(it.modifiers) } }
                    ?.getField("INSTANCE")?.get(null)
                else -> null
            }
        }
    }
}

/** A value's text for a listing: one line, at most [LIMIT] characters, strings and chars as Kotlin literals. */
internal object ValuePreview {

    private const val LIMIT = 80
    private const val CUT = "…"
    private const val MORE = ", $CUT"

    fun of(value: Any?): String = cut(text(value))

    private fun text(value: Any?): String = when (value) {
        null -> "null"
        is String -> literal(value.take(LIMIT + 1), '"')
        is Char -> literal(value.toString(), '\'')
        is Collection<*> -> elements(value.iterator(), "[", "]") { of(it) }
        is Map<*, *> -> elements(value.entries.iterator(), "{", "}") { (key, entry) -> "${of(key)}=${of(entry)}" }
        is Array<*> -> elements(value.iterator(), "[", "]") { of(it) }
        else -> if (value.javaClass.isArray) {
            elements(
                (0 until java.lang.reflect.Array.getLength(value)).asSequence().map {
                    java.lang.reflect.Array.get(value, it)
                }.iterator(),
                "[",
                "]",
            ) { of(it) }
        } else {
            try {
                value.toString()
            } catch (e: Exception) {
                "<toString() threw ${e.javaClass.name}>"
            }
        }
    }

    /** The elements while they fit: a long collection costs no more than a short one. */
    private fun <T> elements(items: Iterator<T>, open: String, close: String, show: (T) -> String): String = buildString {
        append(open)
        while (items.hasNext()) {
            val item = show(items.next())
            val separator = if (length > open.length) ", " else ""
            // room is left for the `, …` that would follow it
            if (separator.isNotEmpty() && length + separator.length + item.length + MORE.length + close.length > LIMIT) {
                append(MORE)
                break
            }
            append(separator).append(item)
        }
        append(close)
    }

    private fun literal(text: String, quote: Char): String = buildString {
        append(quote)
        for (char in text) {
            when (char) {
                '\n' -> append("\\n")
                '\r' -> append("\\r")
                '\t' -> append("\\t")
                '\\' -> append("\\\\")
                quote -> append('\\').append(char)
                else -> append(char)
            }
        }
        append(quote)
    }

    private fun cut(text: String): String {
        val line = text.lineSequence().first()
        return if (line.length > LIMIT) line.take(LIMIT) + CUT else if (line.length < text.length) line + CUT else line
    }
}
