package org.kotlinllm.script.dependencies.resolver

import java.io.IOException
import java.net.URL
import java.net.URLClassLoader
import java.util.Collections
import java.util.Enumeration

/**
 * Loads maven-resolver from its own jars (`resolver-lib/`), apart from the host classpath that snippets compile
 * against and load classes from.
 *
 * The classes of [BRIDGE_PACKAGE] (our code that calls maven-resolver) are part of the engine, but are defined
 * here from the engine's class files, so they link against the resolver jars of this loader. The JDK, Kotlin,
 * SLF4J, kotlin-logging and the rest of the engine come from [parent]; everything else is looked up in the
 * resolver jars first.
 */
internal class ResolverClassLoader(jars: List<URL>, parent: ClassLoader) : URLClassLoader(jars.toTypedArray(), parent) {

    override fun loadClass(name: String, resolve: Boolean): Class<*> =
        synchronized(getClassLoadingLock(name)) {
            val loaded = findLoadedClass(name) ?: when {
                name.startsWith(BRIDGE_PACKAGE) -> defineBridgeClass(name)
                isParentFirst(name) -> parent.loadClass(name)
                else -> ownFirst(name)
            }
            if (resolve) resolveClass(loaded)
            loaded
        }

    override fun getResource(name: String): URL? =
        if (isParentFirst(name.replace('/', '.'))) parent.getResource(name)
        else findResource(name) ?: parent.getResource(name)

    override fun getResources(name: String): Enumeration<URL> {
        if (isParentFirst(name.replace('/', '.'))) return parent.getResources(name)
        val all = Collections.list(findResources(name)) + Collections.list(parent.getResources(name))
        return Collections.enumeration(all)
    }

    private fun ownFirst(name: String): Class<*> =
        try {
            findClass(name)
        } catch (_: ClassNotFoundException) {
            parent.loadClass(name)
        }

    private fun defineBridgeClass(name: String): Class<*> {
        val path = name.replace('.', '/') + ".class"
        val bytes = try {
            parent.getResourceAsStream(path)?.use { it.readBytes() }
        } catch (e: IOException) {
            throw ClassNotFoundException(name, e)
        } ?: throw ClassNotFoundException(name)
        return defineClass(name, bytes, 0, bytes.size, ResolverClassLoader::class.java.protectionDomain)
    }

    private fun isParentFirst(name: String): Boolean =
        PARENT_FIRST.any { name.startsWith(it) } && !name.startsWith(BRIDGE_PACKAGE)

    internal companion object {
        const val BRIDGE_PACKAGE: String = "org.kotlinllm.script.dependencies.maven."

        private val PARENT_FIRST = listOf(
            "java.", "javax.", "jdk.", "sun.", "com.sun.", "org.w3c.", "org.xml.",
            "kotlin.", "kotlinx.", "org.kotlinllm.", "org.slf4j.", "io.github.oshai.", "org.jetbrains.annotations.",
        )

        init {
            registerAsParallelCapable()
        }
    }
}
