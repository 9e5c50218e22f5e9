package org.kotlinllm.script.runtime

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
