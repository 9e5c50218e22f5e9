package org.kotlinllm.script.internal.jupyterapi.linkage

import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassVisitor
import org.jetbrains.org.objectweb.asm.FieldVisitor
import org.jetbrains.org.objectweb.asm.MethodVisitor
import org.jetbrains.org.objectweb.asm.Opcodes
import java.util.Optional
import java.util.WeakHashMap
import java.util.concurrent.ConcurrentHashMap

/** The package (internal name) of JetBrains' Kotlin kernel API, whose uses [IntegrationLinkage] checks. */
internal const val API_PACKAGE: String = "org/jetbrains/kotlinx/jupyter/api/"

internal fun isApi(internalName: String): Boolean = internalName.startsWith(API_PACKAGE)

/** One class as linkage sees it: its supertypes, and its members as `name descriptor`. */
internal data class ClassShape(val name: String, val supertypes: List<String>, val methods: Set<String>, val fields: Set<String>)

/**
 * A class file read into its [ClassShape], its code skipped; null when ASM cannot read it (a class file newer than
 * the compiler's ASM, a damaged one): what cannot be read is not checked, rather than refused.
 */
internal fun readableShapeOf(bytes: ByteArray): ClassShape? = try {
    shapeOf(bytes)
} catch (_: IllegalArgumentException) {
    null
} catch (_: IndexOutOfBoundsException) {
    null
}

/** A class file read into its [ClassShape], its code skipped. */
internal fun shapeOf(bytes: ByteArray): ClassShape {
    val methods = HashSet<String>()
    val fields = HashSet<String>()
    var name = ""
    val supertypes = ArrayList<String>()
    val reader = object : ClassVisitor(Opcodes.ASM9) {
        override fun visit(version: Int, access: Int, n: String, sig: String?, superName: String?, interfaces: Array<String>?) {
            name = n
            superName?.let(supertypes::add)
            interfaces?.let { supertypes.addAll(it) }
        }

        override fun visitMethod(access: Int, n: String, d: String, sig: String?, ex: Array<String>?): MethodVisitor? {
            methods += "$n $d"
            return null
        }

        override fun visitField(access: Int, n: String, d: String, sig: String?, value: Any?): FieldVisitor? {
            fields += "$n $d"
            return null
        }
    }
    ClassReader(bytes).accept(reader, ClassReader.SKIP_CODE or ClassReader.SKIP_DEBUG or ClassReader.SKIP_FRAMES)
    return ClassShape(name, supertypes, methods, fields)
}

/**
 * The shapes of the classes a class loader holds as resources (the API's, the JDK's, Kotlin's), each read once per
 * loader: the engine's loader, whose API never changes, is asked at every library load.
 */
internal object LoaderShapes {
    // Weak keys: a cache never keeps a loader alive (its values hold no reference to it).
    private val byLoader = WeakHashMap<ClassLoader, ConcurrentHashMap<String, Optional<ClassShape>>>()

    /** The shape of [internalName] as [loader] has it, or null when it has no such class. */
    fun shape(loader: ClassLoader, internalName: String): ClassShape? {
        val cache = synchronized(byLoader) { byLoader.getOrPut(loader) { ConcurrentHashMap() } }
        return cache.computeIfAbsent(internalName) { name ->
            Optional.ofNullable(loader.getResourceAsStream("$name.class")?.use { readableShapeOf(it.readBytes()) })
        }.orElse(null)
    }
}
