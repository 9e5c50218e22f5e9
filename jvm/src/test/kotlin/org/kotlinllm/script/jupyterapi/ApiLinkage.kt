package org.kotlinllm.script.jupyterapi

import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassVisitor
import org.jetbrains.org.objectweb.asm.FieldVisitor
import org.jetbrains.org.objectweb.asm.Handle
import org.jetbrains.org.objectweb.asm.MethodVisitor
import org.jetbrains.org.objectweb.asm.Opcodes
import org.jetbrains.org.objectweb.asm.Type
import java.io.File
import java.util.zip.ZipFile

/** The package (internal name) of JetBrains' Kotlin kernel API, whose references [ApiLinkage] checks. */
const val API_PACKAGE: String = "org/jetbrains/kotlinx/jupyter/api/"

/** One class as linkage sees it: its supertypes and its members as `name descriptor`. */
data class ClassShape(val name: String, val supertypes: List<String>, val methods: Set<String>, val fields: Set<String>)

/** A class file read into its [ClassShape]. */
fun shapeOf(bytes: ByteArray): ClassShape {
    val methods = HashSet<String>()
    val fields = HashSet<String>()
    var name = ""
    val supertypes = ArrayList<String>()
    ClassReader(bytes).accept(
        object : ClassVisitor(Opcodes.ASM9) {
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
        },
        ClassReader.SKIP_CODE or ClassReader.SKIP_DEBUG or ClassReader.SKIP_FRAMES,
    )
    return ClassShape(name, supertypes, methods, fields)
}

/** The class files of [jar] under [prefix] (an internal-name prefix), by internal name. */
fun classFiles(jar: File, prefix: String): Map<String, ByteArray> = ZipFile(jar).use { zip ->
    zip.entries().asSequence()
        .filter { !it.isDirectory && it.name.startsWith(prefix) && it.name.endsWith(".class") }
        .associate { it.name.removeSuffix(".class") to zip.getInputStream(it).readBytes() }
}

/**
 * Links classes against the API as the JVM would: each class of the API they name must be one of [api], and each
 * method or field they use on an API class (or on one of theirs that inherits it from the API) must be declared
 * there or in a supertype. Supertypes outside the API (the JDK's, Kotlin's) are read from [platform].
 */
class ApiLinkage(private val api: Map<String, ClassShape>, private val platform: ClassLoader) {
    private val outside = HashMap<String, ClassShape?>()

    private fun isApi(name: String) = name.startsWith(API_PACKAGE)

    private fun shape(name: String, checked: Map<String, ClassShape>): ClassShape? = when {
        isApi(name) -> api[name]
        name in checked -> checked[name]
        else -> outside.getOrPut(name) { platform.getResourceAsStream("$name.class")?.use { shapeOf(it.readBytes()) } }
    }

    /** Whether [member] is declared in [owner] or a supertype, and whether an API class was among those looked at. */
    private fun lookUp(owner: String, member: String, field: Boolean, checked: Map<String, ClassShape>): Pair<Boolean, Boolean> {
        val seen = hashSetOf(owner)
        val queue = ArrayDeque(listOf(owner))
        var throughApi = false
        while (queue.isNotEmpty()) {
            val name = queue.removeFirst()
            throughApi = throughApi || isApi(name)
            val shape = shape(name, checked) ?: continue
            if (member in (if (field) shape.fields else shape.methods)) return true to throughApi
            shape.supertypes.filter(seen::add).forEach(queue::addLast)
        }
        return false to throughApi
    }

    /** What of the API the classes [classes] use and [api] lacks, one line each (`Class`, `Class.member descriptor`). */
    fun unresolved(classes: Collection<ByteArray>): Set<String> {
        val checked = classes.map(::shapeOf).associateBy { it.name }
        val missing = sortedSetOf<String>()
        fun type(type: Type, from: String) {
            val element = if (type.sort == Type.ARRAY) type.elementType else type
            if (element.sort == Type.OBJECT && isApi(element.internalName) && element.internalName !in api) {
                missing += "${element.className} (used by $from)"
            }
        }
        fun descriptorTypes(descriptor: String, from: String) {
            if (descriptor.startsWith("(")) {
                Type.getArgumentTypes(descriptor).forEach { type(it, from) }
                type(Type.getReturnType(descriptor), from)
            } else {
                type(Type.getType(descriptor), from)
            }
        }
        fun member(owner: String, name: String, descriptor: String, field: Boolean, from: String) {
            descriptorTypes(descriptor, from)
            val ownerType = Type.getObjectType(owner)
            type(ownerType, from)
            if (ownerType.sort == Type.ARRAY || (isApi(owner) && owner !in api)) return
            val (found, throughApi) = lookUp(owner, "$name $descriptor", field, checked)
            if (!found && throughApi) missing += "${ownerType.className}.$name $descriptor (used by $from)"
        }
        for (bytes in classes) {
            val from = shapeOf(bytes).name.replace('/', '.')
            ClassReader(bytes).accept(
                object : ClassVisitor(Opcodes.ASM9) {
                    override fun visit(version: Int, access: Int, n: String, sig: String?, superName: String?, interfaces: Array<String>?) {
                        (listOfNotNull(superName) + interfaces.orEmpty()).forEach { type(Type.getObjectType(it), from) }
                    }

                    override fun visitField(access: Int, n: String, d: String, sig: String?, value: Any?): FieldVisitor? {
                        descriptorTypes(d, from)
                        return null
                    }

                    override fun visitMethod(access: Int, n: String, d: String, sig: String?, ex: Array<String>?): MethodVisitor {
                        descriptorTypes(d, from)
                        return object : MethodVisitor(Opcodes.ASM9) {
                            override fun visitMethodInsn(op: Int, owner: String, name: String, desc: String, isInterface: Boolean) =
                                member(owner, name, desc, field = false, from)

                            override fun visitFieldInsn(op: Int, owner: String, name: String, desc: String) =
                                member(owner, name, desc, field = true, from)

                            override fun visitTypeInsn(op: Int, t: String) = type(Type.getObjectType(t), from)

                            override fun visitLdcInsn(value: Any?) {
                                if (value is Type) type(value, from)
                            }

                            override fun visitInvokeDynamicInsn(name: String, desc: String, bootstrap: Handle, vararg args: Any?) {
                                descriptorTypes(desc, from)
                                args.filterIsInstance<Handle>().forEach {
                                    member(it.owner, it.name, it.desc, field = it.tag <= Opcodes.H_PUTSTATIC, from)
                                }
                            }
                        }
                    }
                },
                ClassReader.SKIP_DEBUG or ClassReader.SKIP_FRAMES,
            )
        }
        return missing
    }
}
