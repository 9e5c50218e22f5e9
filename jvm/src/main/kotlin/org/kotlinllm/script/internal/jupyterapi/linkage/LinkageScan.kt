package org.kotlinllm.script.internal.jupyterapi.linkage

import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassVisitor
import org.jetbrains.org.objectweb.asm.FieldVisitor
import org.jetbrains.org.objectweb.asm.Handle
import org.jetbrains.org.objectweb.asm.Label
import org.jetbrains.org.objectweb.asm.MethodVisitor
import org.jetbrains.org.objectweb.asm.Opcodes
import org.jetbrains.org.objectweb.asm.Type
import java.util.TreeSet

/**
 * Links a library's classes against the API as the JVM would: each API class they name must be one the [loader] has,
 * and each method or field they use on an API class (or on one of theirs that inherits it from the API) must be
 * declared there or in a supertype. A use whose way to the API passes a class neither the jars nor the loader have
 * (another dependency's) is not judged.
 */
internal class LinkageScan(private val loader: ClassLoader, private val jar: JarClasses) {
    private val missing = TreeSet<String>()
    private val looked = HashSet<String>()

    /** What of the API the classes checked so far use and the loader lacks, one line each, sorted. */
    fun missing(): List<String> = missing.toList()

    /** Checks one class file; one ASM cannot read is left unchecked, as [readableShapeOf] says why. */
    fun check(bytes: ByteArray) {
        try {
            ClassReader(bytes).accept(ClassUses(), ClassReader.SKIP_DEBUG or ClassReader.SKIP_FRAMES)
        } catch (_: IllegalArgumentException) {
        } catch (_: IndexOutOfBoundsException) {
        }
    }

    private fun shape(name: String): ClassShape? =
        if (!isApi(name) && jar.has(name)) jar.shape(name) else LoaderShapes.shape(loader, name)

    private fun type(type: Type) {
        val element = if (type.sort == Type.ARRAY) type.elementType else type
        if (element.sort == Type.OBJECT) apiClass(element.internalName)
    }

    private fun apiClass(name: String) {
        if (isApi(name) && LoaderShapes.shape(loader, name) == null) missing += MemberNames.className(name)
    }

    private fun descriptor(descriptor: String) {
        if (descriptor.startsWith("(")) {
            Type.getArgumentTypes(descriptor).forEach(::type)
            type(Type.getReturnType(descriptor))
        } else {
            type(Type.getType(descriptor))
        }
    }

    private fun member(owner: String, name: String, descriptor: String, field: Boolean) {
        descriptor(descriptor)
        type(Type.getObjectType(owner))
        // Only the jars' classes and the API's lead to the API; arrays, the JDK's and Kotlin's never do.
        if (owner.startsWith("[") || !(isApi(owner) || jar.has(owner))) return
        if (!looked.add("$owner $name $descriptor $field")) return
        when (resolve(owner, name, descriptor, field)) {
            Resolution.MISSING ->
                missing +=
                    if (field) MemberNames.field(owner, name) else MemberNames.method(owner, name, descriptor, false)
            Resolution.OTHER_RETURN -> missing += MemberNames.method(owner, name, descriptor, true)
            Resolution.FOUND, Resolution.NOT_JUDGED -> Unit
        }
    }

    private enum class Resolution { FOUND, MISSING, OTHER_RETURN, NOT_JUDGED }

    /** Looks [name] up in [owner] and its supertypes, breadth first, as the JVM's resolution finds a member. */
    private fun resolve(owner: String, name: String, descriptor: String, field: Boolean): Resolution {
        val member = "$name $descriptor"
        val sameCall = "$name ${descriptor.substringBefore(')')})"
        val seen = hashSetOf(owner)
        val queue = ArrayDeque(listOf(owner))
        var throughApi = false
        var unknown = false
        var otherReturn = false
        while (queue.isNotEmpty()) {
            val current = queue.removeFirst()
            throughApi = throughApi || isApi(current)
            val shape = shape(current)
            if (shape == null) {
                unknown = true
                continue
            }
            val members = if (field) shape.fields else shape.methods
            if (member in members) return Resolution.FOUND
            otherReturn = otherReturn || (!field && members.any { it.startsWith(sameCall) })
            shape.supertypes.filter(seen::add).forEach(queue::addLast)
        }
        return when {
            !throughApi || unknown -> Resolution.NOT_JUDGED
            otherReturn -> Resolution.OTHER_RETURN
            else -> Resolution.MISSING
        }
    }

    private inner class ClassUses : ClassVisitor(Opcodes.ASM9) {
        override fun visit(version: Int, access: Int, name: String, sig: String?, superName: String?, interfaces: Array<String>?) {
            (listOfNotNull(superName) + interfaces.orEmpty()).forEach { type(Type.getObjectType(it)) }
        }

        override fun visitField(access: Int, name: String, descriptor: String, sig: String?, value: Any?): FieldVisitor? {
            descriptor(descriptor)
            return null
        }

        override fun visitMethod(access: Int, name: String, descriptor: String, sig: String?, ex: Array<String>?): MethodVisitor {
            descriptor(descriptor)
            return CodeUses()
        }
    }

    private inner class CodeUses : MethodVisitor(Opcodes.ASM9) {
        override fun visitMethodInsn(opcode: Int, owner: String, name: String, descriptor: String, isInterface: Boolean) =
            member(owner, name, descriptor, field = false)

        override fun visitFieldInsn(opcode: Int, owner: String, name: String, descriptor: String) =
            member(owner, name, descriptor, field = true)

        override fun visitTypeInsn(opcode: Int, type: String) = type(Type.getObjectType(type))

        override fun visitMultiANewArrayInsn(descriptor: String, dimensions: Int) = descriptor(descriptor)

        override fun visitTryCatchBlock(start: Label, end: Label, handler: Label, type: String?) {
            type?.let { type(Type.getObjectType(it)) }
        }

        override fun visitLdcInsn(value: Any?) {
            if (value is Type) {
                if (value.sort == Type.METHOD) descriptor(value.descriptor) else type(value)
            }
        }

        override fun visitInvokeDynamicInsn(name: String, descriptor: String, bootstrap: Handle, vararg arguments: Any?) {
            descriptor(descriptor)
            for (handle in arguments.filterIsInstance<Handle>() + bootstrap) {
                member(handle.owner, handle.name, handle.desc, field = handle.tag <= Opcodes.H_PUTSTATIC)
            }
            arguments.filterIsInstance<Type>().forEach { visitLdcInsn(it) }
        }
    }
}
