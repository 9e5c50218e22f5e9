package org.kotlinllm.script.internal.compiler.hints

import java.io.File
import java.io.InputStream
import java.net.URI
import java.nio.file.FileSystems
import java.nio.file.Files
import java.util.concurrent.ConcurrentHashMap
import java.util.zip.ZipFile
import kotlin.io.path.name

/** Where an importable name comes from, in the order hints prefer them. */
internal enum class Origin { DEPENDENCY, KOTLIN, JDK }

/**
 * A top-level name an import can bring: a class ([function] false), or a public top-level function or property of
 * a Kotlin file facade ([function] true) whose first parameter, a receiver for an extension, is of class
 * [firstParameter] (a JVM name; null when it takes none). [container] holds its class file: a jar's path, or the
 * JDK module's name.
 */
internal class Importable(
    val fqName: String,
    val function: Boolean,
    val firstParameter: String?,
    val origin: Origin,
    val container: String,
) {
    val packageName: String get() = fqName.substringBeforeLast('.', "")
}

/**
 * The names of a part of the classpath (the JDK's exported packages, or one jar) by simple name. Made once per part
 * and kept for the process: the JDK's and the host's libraries are the same for every session, a dependency's jar is
 * keyed by its path and time.
 */
internal class ClasspathIndex private constructor(private val byName: Map<String, List<Importable>>) {

    fun find(simpleName: String): List<Importable> = byName[simpleName].orEmpty()

    companion object {
        /** Whether [importable] is a function or a public class, read from its class file (loading no class). */
        fun isPublic(importable: Importable): Boolean = importable.function || readClass(importable, "", ClassFiles::isPublic) == true

        /**
         * Whether the class [importable] has a member [name] that code reaches through the class's name: a static
         * method (Java's `Instant.now()`) or a method of its companion object.
         */
        fun hasStaticMember(importable: Importable, name: String): Boolean {
            if (importable.function) return false
            val static = readClass(importable, "") { input -> ClassFiles.callables(input).any { it.static && it.name == name } }
            val companion = readClass(importable, COMPANION) { input -> ClassFiles.callables(input).any { it.name == name } }
            return static == true || companion == true
        }

        /** What [read] gives of the class file of [importable]'s class, or of its nested class [suffix]; null without one. */
        private fun <T> readClass(importable: Importable, suffix: String, read: (InputStream) -> T): T? {
            val path = importable.fqName.replace('.', '/') + suffix + CLASS
            return runCatching {
                if (importable.origin == Origin.JDK) {
                    val jrt = FileSystems.getFileSystem(URI.create("jrt:/"))
                    Files.newInputStream(jrt.getPath("modules", importable.container, path)).use(read)
                } else {
                    ZipFile(importable.container).use { zip -> zip.getEntry(path)?.let { zip.getInputStream(it).use(read) } }
                }
            }.getOrNull()
        }

        private val jars = ConcurrentHashMap<String, ClasspathIndex>()

        /** The classes of the packages the JDK's modules export to everyone (not `sun.*`, `com.sun.*`, `jdk.internal.*`). */
        val jdk: ClasspathIndex by lazy { ClasspathIndex(jdkNames()) }

        /** The names of [jar] (from [origin]), read once per version of the file. */
        fun of(jar: File, origin: Origin): ClasspathIndex =
            jars.computeIfAbsent("${jar.absolutePath}:${jar.lastModified()}:$origin") {
                ClasspathIndex(runCatching { jarNames(jar, origin) }.getOrDefault(emptyMap()))
            }

        private fun jdkNames(): Map<String, List<Importable>> {
            val names = HashMap<String, MutableList<Importable>>()
            val jrt = runCatching { FileSystems.getFileSystem(URI.create("jrt:/")) }.getOrNull() ?: return names
            for (module in ModuleLayer.boot().modules()) {
                val exported = module.descriptor?.exports().orEmpty().filter { !it.isQualified }.map { it.source() }
                for (packageName in exported) {
                    if (hidden(packageName)) continue
                    val folder = jrt.getPath("modules", module.name, *packageName.split('.').toTypedArray())
                    val files = runCatching { Files.list(folder).use { stream -> stream.map { it.name }.toList() } }.getOrNull()
                    for (file in files.orEmpty()) {
                        val simple = topLevelClass(file) ?: continue
                        names.getOrPut(simple) { mutableListOf() } +=
                            Importable("$packageName.$simple", false, null, Origin.JDK, module.name)
                    }
                }
            }
            return names
        }

        private fun jarNames(jar: File, origin: Origin): Map<String, List<Importable>> {
            val names = HashMap<String, MutableList<Importable>>()
            ZipFile(jar).use { zip ->
                for (entry in zip.entries()) {
                    val path = entry.name
                    if (!path.endsWith(CLASS) || path.startsWith("META-INF/")) continue
                    val packageName = path.substringBeforeLast('/', "").replace('/', '.')
                    if (packageName.isEmpty() || hidden(packageName)) continue
                    val file = path.substringAfterLast('/')
                    topLevelClass(file)?.let { simple ->
                        if (!isFacade(simple)) {
                            names.getOrPut(simple) { mutableListOf() } +=
                                Importable("$packageName.$simple", false, null, origin, jar.absolutePath)
                        }
                    }
                    val simple = file.removeSuffix(CLASS)
                    // a facade's functions and properties are its static methods; a companion's extensions (`Int.seconds`
                    // of `Duration.Companion`) are its methods with a receiver, imported by the companion's path
                    val owner = when {
                        isFacade(simple) -> packageName
                        simple.endsWith(COMPANION) && '$' !in simple.removeSuffix(COMPANION) ->
                            "$packageName.${simple.removeSuffix(COMPANION)}.Companion"
                        else -> continue
                    }
                    val methods = runCatching { zip.getInputStream(entry).use(ClassFiles::callables) }.getOrDefault(emptyList())
                    for (method in methods) {
                        if (method.static != (owner == packageName)) continue
                        val name = kotlinName(method.name) ?: continue
                        val first = firstParameter(method.descriptor)
                        if (owner != packageName && first == null) continue
                        val list = names.getOrPut(name) { mutableListOf() }
                        val fqName = "$owner.$name"
                        if (list.none { it.fqName == fqName && it.firstParameter == first }) {
                            list += Importable(fqName, true, first, origin, jar.absolutePath)
                        }
                    }
                }
            }
            return names
        }

        /** The simple name of a top-level class file's class; null for a nested one, `module-info` and `package-info`. */
        private fun topLevelClass(file: String): String? {
            if (!file.endsWith(CLASS)) return null
            val simple = file.removeSuffix(CLASS)
            return simple.takeIf { '$' !in it && '-' !in it && it != "module-info" && it != "package-info" }
        }

        /** A Kotlin file facade (`PathsKt`) or a part of a multi-file one (`CollectionsKt___CollectionsKt`). */
        private fun isFacade(simple: String): Boolean = simple.endsWith("Kt") || "Kt__" in simple

        /**
         * The Kotlin name of a facade's static method: a function's own, a property's from its getter (`getName` →
         * `name`); null for what no import can name (setters, defaults, accessors, `$` names).
         */
        private fun kotlinName(method: String): String? {
            val name = method.substringBefore('-') // a function taking an inline class has a mangled name
            if ('$' in name || (name.startsWith("set") && name.length > 3 && name[3].isUpperCase())) return null
            if (name.startsWith("get") && name.length > 3 && name[3].isUpperCase()) return name[3].lowercaseChar() + name.substring(4)
            return name.ifEmpty { null }
        }

        /**
         * The class of a method descriptor's first parameter (`java.nio.file.Path`), a primitive by its Kotlin name
         * (`Int`); null for none or an array.
         */
        private fun firstParameter(descriptor: String): String? {
            if (descriptor.length < 2 || descriptor[1] == ')' || descriptor[1] == '[') return null
            if (descriptor[1] != 'L') return PRIMITIVES[descriptor[1]]
            return descriptor.substring(2, descriptor.indexOf(';')).replace('/', '.')
        }

        /** Packages no hint names: the JDK's internals and any library's `internal` or `impl` packages. */
        private fun hidden(packageName: String): Boolean =
            packageName.startsWith("sun.") || packageName.startsWith("com.sun.") || packageName.startsWith("jdk.internal") ||
                ".internal" in packageName || ".impl" in packageName

        private const val CLASS = ".class"
        private const val COMPANION = "\$Companion"
        private val PRIMITIVES = mapOf(
            'I' to "Int",
            'J' to "Long",
            'D' to "Double",
            'F' to "Float",
            'Z' to "Boolean",
            'S' to "Short",
            'B' to "Byte",
            'C' to "Char",
        )
    }
}
