package org.kotlinllm.script.internal.libraries

import org.kotlinllm.script.internal.libraries.LibraryInternals.Lookup
import java.lang.reflect.InvocationHandler

/**
 * Calls into a library that a session loaded, through [LibraryInternals]: the library is a snippet dependency, never
 * on the engine's classpath, so its classes are found through [loader], the class loader of the library class the
 * value was matched by.
 */
internal class LibraryCalls(private val loader: ClassLoader?) {

    /** What the method [lookup] names gives for [receiver] (null for a static method) and [arguments]. */
    fun call(lookup: Lookup, receiver: Any?, vararg arguments: Any?): Any? = LibraryInternals.call(lookup, loader, receiver, *arguments)

    /** An implementation of the library's interface [lookup], whose calls [handler] answers. */
    fun implement(lookup: Lookup, handler: InvocationHandler): Any = LibraryInternals.implement(lookup, loader, handler)

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
    }
}
