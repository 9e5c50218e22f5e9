package org.kotlinllm.script.internal

import org.kotlinllm.script.runtime.DeclarationListing
import org.kotlinllm.script.runtime.SessionDeclarations
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

    private val symbols = ConcurrentHashMap<String, Symbol>()
    private val order = AtomicLong()

    @Volatile
    private var classLoader: ClassLoader? = null

    /** Records what [parsed] declared, compiled into [snippetClass]; [signatures] by name are read only if it declared something. */
    fun declared(parsed: ParsedSnippet, snippetClass: Class<*>?, signatures: () -> Map<String, List<String>> = ::emptyMap) {
        snippetClass?.classLoader?.let { classLoader = it }
        val className = snippetClass?.name ?: return
        if (parsed.declarations.isEmpty()) return
        val resolved = signatures()
        for (declaration in parsed.declarations) {
            val signature = resolved[declaration.name] ?: listOf(declaration.header)
            // a redeclared name moves to the end, where the newest declaration is
            symbols.remove(declaration.name)
            symbols[declaration.name] = Symbol(declaration, className, signature, order.incrementAndGet())
        }
    }

    fun names(): Set<String> = symbols.keys

    fun declaration(name: String): DeclaredName? = symbols[name]?.declaration

    /** The signatures of the declarations visible now in the order they were declared, a property's with its value. */
    override fun listing(): List<String> = symbols.entries.sortedBy { it.value.order }.flatMap { (name, symbol) ->
        if (symbol.declaration.kind != DeclaredName.Kind.PROPERTY) return@flatMap symbol.signatures
        val signature = symbol.signatures.first()
        val read = value(name)
        val value = read?.getOrNull()
        // a property without a field (a getter, a delegate) has no value to show; a lateinit one not set holds null;
        // a lambda's text is its JVM class, which the type says better
        if (read == null || read.isFailure || (value == null && signature.startsWith("lateinit ")) || value is Function<*>) {
            listOf(signature)
        } else {
            listOf("$signature = ${ValuePreview.of(value)}")
        }
    }

    /** `vars()` of code on the calling thread lists this session. */
    fun bindToCurrentThread() {
        SessionDeclarations.current.set(this)
    }

    fun opened() {
        SessionDeclarations.opened(this)
    }

    fun closed() {
        SessionDeclarations.closed(this)
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
