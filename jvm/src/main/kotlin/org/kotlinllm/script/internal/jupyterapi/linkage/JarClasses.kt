package org.kotlinllm.script.internal.jupyterapi.linkage

import java.io.Closeable
import java.io.File
import java.io.IOException
import java.util.zip.ZipEntry
import java.util.zip.ZipFile

/**
 * The classes of a library's jars, by internal name, the first jar's where several have one (as a class loader
 * finds them). Shapes are read on demand: a check needs the few classes on the way from a use to the API.
 */
internal class JarClasses(jars: List<File>) : Closeable {
    private val zips = ArrayList<ZipFile>()
    private val entries = LinkedHashMap<String, Pair<ZipFile, ZipEntry>>()
    private val shapes = HashMap<String, ClassShape>()

    init {
        try {
            jars.mapTo(zips, ::ZipFile)
        } catch (unreadable: IOException) {
            close()
            throw unreadable
        }
        for (zip in zips) {
            for (entry in zip.entries()) {
                val name = entry.name
                // META-INF holds other releases' copies (multi-release jars) and module-info.class, neither linked here
                if (entry.isDirectory || !name.endsWith(".class") || name.startsWith("META-INF/")) continue
                entries.putIfAbsent(name.removeSuffix(".class"), zip to entry)
            }
        }
    }

    fun has(internalName: String): Boolean = internalName in entries

    fun shape(internalName: String): ClassShape? = shapes[internalName] ?: entries[internalName]?.let { (zip, entry) ->
        readableShapeOf(zip.getInputStream(entry).use { it.readBytes() })?.also { shapes[internalName] = it }
    }

    /**
     * The class files that name the API somewhere in their constant pool, found by its package's bytes (an ASCII name
     * is the same in the class file's modified UTF-8; as a Latin-1 string, the JDK's string search does the work),
     * the API's own classes left out (a jar that bundles a copy of them gets the engine's at run time).
     */
    fun usingApi(): Sequence<ByteArray> = entries.asSequence()
        .filter { (name, _) -> !isApi(name) }
        .map { (_, located) -> located.first.getInputStream(located.second).use { it.readBytes() } }
        .filter { String(it, Charsets.ISO_8859_1).contains(API_PACKAGE) }

    override fun close() {
        zips.forEach(ZipFile::close)
    }
}
