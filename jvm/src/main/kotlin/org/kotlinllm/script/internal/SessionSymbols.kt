package org.kotlinllm.script.internal

import java.lang.reflect.Modifier
import java.util.concurrent.ConcurrentHashMap

/**
 * What the snippets of a session declared, for completion and inspection: the declarations by name (the latest
 * wins, like for the snippets) and, for properties, where to read their current value.
 */
internal class SessionSymbols {

    private class Symbol(val declaration: DeclaredName, val snippetClass: String)

    private val symbols = ConcurrentHashMap<String, Symbol>()

    @Volatile
    private var classLoader: ClassLoader? = null

    fun declared(parsed: ParsedSnippet, snippetClass: Class<*>?) {
        snippetClass?.classLoader?.let { classLoader = it }
        val className = snippetClass?.name ?: return
        for (declaration in parsed.declarations) symbols[declaration.name] = Symbol(declaration, className)
    }

    fun names(): Set<String> = symbols.keys

    fun declaration(name: String): DeclaredName? = symbols[name]?.declaration

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
