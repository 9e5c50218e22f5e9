package org.kotlinllm.script.runtime

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/* What compiled snippets call: public only because they do. */

/**
 * The engine inserts a call of [setToLoaderOf] at the start of every snippet's body (see SnippetBytecode): libraries
 * find their services and resources through the thread's context class loader, and only the snippet's class loader
 * sees its `@file:DependsOn` jars. Public only because compiled snippets call it.
 */
public object ContextClassLoader {

    /** Makes the class loader of [snippetClass] the calling thread's context class loader. */
    @JvmStatic
    public fun setToLoaderOf(snippetClass: Class<*>) {
        Thread.currentThread().contextClassLoader = snippetClass.classLoader
    }
}

/**
 * The values of the properties provided to the snippets of the sessions, read by the getters of each session's
 * hidden prelude snippet. Public only because compiled snippets call it.
 */
public object ProvidedValues {
    private val values = ConcurrentHashMap<Long, Map<String, Any?>>()
    private val ids = AtomicLong()

    /** Keeps [values] under a new session id, which the prelude's getters pass to [get]. */
    internal fun register(values: Map<String, Any?>): Long {
        val id = ids.incrementAndGet()
        this.values[id] = values
        return id
    }

    internal fun unregister(id: Long) {
        values.remove(id)
    }

    /** The value of the property [name] of session [sessionId]. */
    @JvmStatic
    public fun get(sessionId: Long, name: String): Any? = values[sessionId]?.get(name)
}
