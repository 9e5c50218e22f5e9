package org.kotlinllm.script.internal.compiler

import org.jetbrains.kotlin.codegen.BytesUrlUtils
import java.io.File
import java.net.URL
import java.net.URLClassLoader
import java.util.Collections
import java.util.Enumeration

/**
 * The one class loader of a session's snippets and of the jars their `@file:DependsOn` added. The REPL's own
 * evaluation makes a loader for each snippet, a child of the one before, which stays loaded as long as the session:
 * each costs the JVM a few kB of class metadata and of heap whatever its snippet holds, and a snippet that declares
 * nothing keeps one too. Snippet classes have names of their own (`Snippet12$Point`), so one loader holds them all.
 *
 * It is not parallel capable: it loads classes under its own lock, which [add] and [release] take too.
 */
internal class SnippetClassLoader(parent: ClassLoader) : URLClassLoader(arrayOf(), parent) {

    /** The files of the snippets' modules by path (`Snippet3.class`), a class file until its class is defined. */
    private val files = HashMap<String, ByteArray>()

    /**
     * Adds the files of a compiled snippet's module, and the jars it was compiled with beyond the session's (a jar
     * added before is skipped by [addURL]).
     */
    fun add(moduleFiles: Map<String, ByteArray>, classpath: List<File>) {
        synchronized(this) { files.putAll(moduleFiles) }
        for (jar in classpath) addURL(jar.toURI().toURL())
    }

    /**
     * Defines the class of each of [classFiles] (paths in a snippet's module) and drops its bytes, here and from
     * [classFiles]: nothing reads them once the class is defined. A class that does not load keeps its bytes.
     */
    fun release(classFiles: MutableMap<String, ByteArray>) {
        val loaded = classFiles.keys.filter { it.endsWith(CLASS_FILE) && loads(it) }.toSet()
        synchronized(this) {
            files.keys.removeAll(loaded)
            classFiles.keys.removeAll(loaded)
        }
    }

    private fun loads(path: String): Boolean = try {
        Class.forName(path.removeSuffix(CLASS_FILE).replace('/', '.'), false, this)
        true
    } catch (_: ClassNotFoundException) {
        false
    } catch (_: LinkageError) {
        false
    }

    override fun findClass(name: String): Class<*> {
        val path = name.replace('.', '/') + CLASS_FILE
        val bytes = synchronized(this) { files[path] } ?: return super.findClass(name)
        val defined = defineClass(name, bytes, 0, bytes.size)
        synchronized(this) { files.remove(path) }
        return defined
    }

    override fun findResource(name: String): URL? =
        synchronized(this) { files[name] }?.let(BytesUrlUtils::createBytesUrl) ?: super.findResource(name)

    override fun findResources(name: String): Enumeration<URL> {
        val own = synchronized(this) { files[name] }?.let(BytesUrlUtils::createBytesUrl)
        val fromJars = super.findResources(name)
        return if (own == null) fromJars else Collections.enumeration(listOf(own) + fromJars.toList())
    }

    private companion object {
        const val CLASS_FILE = ".class"
    }
}
