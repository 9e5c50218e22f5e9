package org.kotlinllm.script.internal.libraries

import java.lang.reflect.InvocationTargetException

/**
 * Calls into a library that a session loaded, by name: the library is a snippet dependency, never on the engine's
 * classpath, so its classes are found through the class loader of the library class the value was matched by.
 */
internal class LibraryCalls(private val loader: ClassLoader?) {

    fun type(name: String): Class<*> = Class.forName(name, true, loader)

    /** The static [method] of class [owner] (a Kotlin file class, e.g. `…HtmlKt`) whose parameters are [parameters]. */
    fun static(owner: String, method: String, parameters: List<String>, vararg arguments: Any?): Any? {
        val found = type(owner).getMethod(method, *parameters.map(::parameterType).toTypedArray())
        return unwrap { found.invoke(null, *arguments) }
    }

    /**
     * The method [method] of [receiver] as its public type [owner] declares it (the value's own class may be one the
     * library keeps internal, whose methods reflection may not call), with [parameters].
     */
    fun member(owner: String, receiver: Any, method: String, parameters: List<String> = emptyList(), vararg arguments: Any?): Any? {
        val found = type(owner).getMethod(method, *parameters.map(::parameterType).toTypedArray())
        return unwrap { found.invoke(receiver, *arguments) }
    }

    /** The instance of the Kotlin `object` [name]. */
    fun instance(name: String): Any = type(name).getField("INSTANCE").get(null)

    /** The companion object of class [name]. */
    fun companion(name: String): Any = type(name).getField("Companion").get(null)

    private fun parameterType(name: String): Class<*> = when (name) {
        "int" -> Int::class.javaPrimitiveType
        "boolean" -> Boolean::class.javaPrimitiveType
        else -> null
    } ?: type(name)

    companion object {
        /** The classes and interfaces [type] is, itself first, each once. */
        fun hierarchy(type: Class<*>): Map<String, Class<*>> {
            val found = LinkedHashMap<String, Class<*>>()
            val queue = ArrayDeque(listOf(type))
            while (queue.isNotEmpty()) {
                val next = queue.removeFirst()
                if (found.putIfAbsent(next.name, next) != null) continue
                next.superclass?.let(queue::addLast)
                queue.addAll(next.interfaces)
            }
            return found
        }

        /** A reflective call, the library's own exception rethrown as the renderer's failure. */
        fun <T> unwrap(call: () -> T): T = try {
            call()
        } catch (e: InvocationTargetException) {
            throw e.targetException ?: e
        }
    }
}
