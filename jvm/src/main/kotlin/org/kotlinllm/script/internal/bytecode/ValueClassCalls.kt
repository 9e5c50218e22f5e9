package org.kotlinllm.script.internal.bytecode

import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassVisitor
import org.jetbrains.org.objectweb.asm.Handle
import org.jetbrains.org.objectweb.asm.MethodVisitor
import org.jetbrains.org.objectweb.asm.Opcodes
import org.jetbrains.org.objectweb.asm.Type

/**
 * Makes declarations whose JVM signature has a value class (`Duration`, `UInt`, a user's `@JvmInline value class`)
 * callable from later snippets. The K2 REPL compiler emits them in the snippet declaring them under their plain
 * names (`getT()`, `setT(J)`, `d()`, `g$default(…)`, members of a value class as instance methods `len()`), but
 * compiles the calls of later snippets as for a library: by the mangled names (`getT-UwyO8pc()`,
 * `g-LRDsOJo$default(…)`), members of a value class as static calls on the unboxed value (`len-impl(String)`),
 * which fails with NoSuchMethodError. A later snippet's class that overrides an earlier snippet's member gets only
 * the mangled name, which the earlier snippet's code, calling the plain one, would miss.
 *
 * So this keeps the methods of every class the session compiled and rewrites each new snippet's class files before
 * they are loaded: a call of a session class's method that does not exist, under a mangled name whose plain name does
 * exist with the same descriptor, calls the plain one; a static call of a missing member of a session's value class
 * calls it on the boxed value (through a small static method added to the calling class); and a class that declares
 * a member only under its mangled name, where a session class it extends declares the plain one, gets the plain one
 * too, calling the mangled. Calls whose method exists are never changed, nor calls of classes the session did not
 * compile.
 */
// No public KT issue found: on 2.4.21 a snippet declares `getT()`, a later one calls `getT-UwyO8pc()` (NoSuchMethodError).
internal class ValueClassCalls {

    private class KnownClass(
        val superName: String?,
        val interfaces: List<String>,
        val methods: MethodTable,
    ) {
        val isValueClass: Boolean get() = methods.box != null
    }

    /**
     * The methods of a class, `name(descriptor)` with their access flags, in one sorted string: every class the
     * session compiled keeps one for the rest of the session, and a hash map of strings took ~5 times the room.
     */
    private class MethodTable(methods: Map<String, Int>) {
        private val sorted = methods.keys.sorted()
        private val text: String = sorted.joinToString("")

        /** Where each method's entry in [text] ends (the next one's start). */
        private val ends = IntArray(sorted.size).also { ends ->
            var end = 0
            sorted.forEachIndexed { index, key ->
                end += key.length
                ends[index] = end
            }
        }
        private val access = IntArray(sorted.size) { methods.getValue(sorted[it]) }

        /** The `box-impl` method's name and descriptor if the class is a value class. */
        val box: String? = sorted.firstOrNull { it.startsWith("$BOX(") }

        private fun start(index: Int) = if (index == 0) 0 else ends[index - 1]

        private fun key(index: Int) = text.substring(start(index), ends[index])

        /** The access flags of [method] (name and descriptor), null if the class does not declare it. */
        operator fun get(method: String): Int? {
            var low = 0
            var high = ends.size - 1
            while (low <= high) {
                val middle = (low + high) ushr 1
                val order = compare(middle, method)
                when {
                    order < 0 -> low = middle + 1
                    order > 0 -> high = middle - 1
                    else -> return access[middle]
                }
            }
            return null
        }

        operator fun contains(method: String): Boolean = get(method) != null

        /** Each method with its access flags. */
        fun entries(): Sequence<Pair<String, Int>> = access.indices.asSequence().map { key(it) to access[it] }

        /** The order of the method at [index] against [method], as [String.compareTo] gives it, without copying. */
        private fun compare(index: Int, method: String): Int {
            val start = start(index)
            val length = ends[index] - start
            for (i in 0 until minOf(length, method.length)) {
                val difference = text[start + i] - method[i]
                if (difference != 0) return difference
            }
            return length - method.length
        }
    }

    private val known = HashMap<String, KnownClass>()

    /** Remembers the classes of one compilation; called with all of them before any is [rewrite]n. */
    fun learn(classFiles: Collection<ByteArray>) {
        for (bytes in classFiles) {
            val reader = ClassReader(bytes)
            val methods = HashMap<String, Int>()
            var parents = emptyList<String>()
            reader.accept(
                object : ClassVisitor(Opcodes.ASM9) {
                    override fun visit(
                        version: Int,
                        access: Int,
                        name: String?,
                        signature: String?,
                        superName: String?,
                        interfaces: Array<out String>?,
                    ) {
                        parents = interfaces.orEmpty().toList()
                    }

                    override fun visitMethod(
                        access: Int,
                        name: String,
                        descriptor: String,
                        signature: String?,
                        exceptions: Array<out String>?,
                    ): MethodVisitor? {
                        methods[name + descriptor] = access
                        return null
                    }
                },
                ClassReader.SKIP_CODE or ClassReader.SKIP_DEBUG or ClassReader.SKIP_FRAMES,
            )
            known[reader.className] = KnownClass(reader.superName, parents, MethodTable(methods))
        }
    }

    /** A visitor that rewrites the class it visits (one learned already) as described above, then passes it on. */
    fun rewrite(next: ClassVisitor, onChange: () -> Unit): ClassVisitor = Rewriter(next, onChange)

    private sealed interface Target

    /** Call [name] instead, with the same descriptor. */
    private class Rename(val name: String) : Target

    /** Box the first argument with [valueClass]'s `box-impl` and call the instance method [name] [descriptor] on it. */
    private class OnBoxed(val valueClass: String, val boxDescriptor: String, val name: String, val descriptor: String) : Target

    private inner class Rewriter(next: ClassVisitor, private val onChange: () -> Unit) : ClassVisitor(Opcodes.ASM9, next) {
        private lateinit var className: String
        private var isInterface = false
        private val adapters = LinkedHashMap<String, Pair<String, OnBoxed>>()

        override fun visit(
            version: Int,
            access: Int,
            name: String,
            signature: String?,
            superName: String?,
            interfaces: Array<out String>?,
        ) {
            className = name
            isInterface = access and Opcodes.ACC_INTERFACE != 0
            super.visit(version, access, name, signature, superName, interfaces)
        }

        override fun visitMethod(
            access: Int,
            name: String?,
            descriptor: String?,
            signature: String?,
            exceptions: Array<out String>?,
        ): MethodVisitor? {
            val next = super.visitMethod(access, name, descriptor, signature, exceptions) ?: return null
            return object : MethodVisitor(Opcodes.ASM9, next) {
                /** The class constant last loaded: the owner of the JVM signature a callable reference passes next. */
                private var classConstant: String? = null

                override fun visitMethodInsn(opcode: Int, owner: String, name: String, descriptor: String, isInterface: Boolean) {
                    when (val target = target(opcode, owner, name, descriptor)) {
                        null -> super.visitMethodInsn(opcode, owner, name, descriptor, isInterface)
                        is Rename -> {
                            onChange()
                            super.visitMethodInsn(opcode, owner, target.name, descriptor, isInterface)
                        }
                        is OnBoxed -> {
                            onChange()
                            val adapter = adapters.getOrPut("$owner.$name$descriptor") { "$ADAPTER${adapters.size}" to target }
                            super.visitMethodInsn(Opcodes.INVOKESTATIC, className, adapter.first, descriptor, this@Rewriter.isInterface)
                        }
                    }
                }

                override fun visitInvokeDynamicInsn(name: String?, descriptor: String?, bootstrap: Handle?, vararg arguments: Any?) {
                    super.visitInvokeDynamicInsn(name, descriptor, bootstrap, *arguments.map { renamed(it) }.toTypedArray())
                }

                override fun visitLdcInsn(value: Any?) {
                    val signature = (value as? String)?.let { referencedSignature(classConstant, it) }
                    classConstant = (value as? Type)?.takeIf { it.sort == Type.OBJECT }?.internalName ?: classConstant
                    super.visitLdcInsn(signature ?: renamed(value))
                }
            }
        }

        /** A method handle (of a function reference) to a missing mangled method, to the plain one. */
        private fun renamed(value: Any?): Any? {
            if (value !is Handle || value.tag == Opcodes.H_NEWINVOKESPECIAL || value.tag < Opcodes.H_INVOKEVIRTUAL) return value
            val opcode = if (value.tag == Opcodes.H_INVOKESTATIC) Opcodes.INVOKESTATIC else Opcodes.INVOKEVIRTUAL
            val target = target(opcode, value.owner, value.name, value.desc) as? Rename ?: return value
            onChange()
            return Handle(value.tag, value.owner, target.name, value.desc, value.isInterface)
        }

        /**
         * The JVM signature (`getT-UwyO8pc()J`) that a callable reference (`::t`) passes with its owner for Kotlin
         * reflection, with the plain name if the call is renamed; null if it is not such a signature.
         */
        private fun referencedSignature(owner: String?, value: String): String? {
            if (owner == null) return null
            val name = value.substringBefore('(')
            val descriptor = value.substring(name.length)
            if (name.isEmpty() || !METHOD_DESCRIPTOR.matches(descriptor)) return null
            val target = target(Opcodes.INVOKEVIRTUAL, owner, name, descriptor) ?: target(Opcodes.INVOKESTATIC, owner, name, descriptor)
            if (target !is Rename) return null
            onChange()
            return target.name + descriptor
        }

        override fun visitEnd() {
            for ((adapter, target) in adapters.values) addAdapter(adapter, target)
            addPlainOverrides()
            super.visitEnd()
        }

        private fun addAdapter(name: String, target: OnBoxed) {
            val descriptor = Type.getMethodType(
                Type.getReturnType(target.descriptor),
                *Type.getArgumentTypes(target.boxDescriptor),
                *Type.getArgumentTypes(target.descriptor),
            )
            val method = super.visitMethod(
                Opcodes.ACC_PRIVATE or Opcodes.ACC_STATIC or Opcodes.ACC_SYNTHETIC,
                name,
                descriptor.descriptor,
                null,
                null,
            )
            method.visitCode()
            var slot = 0
            for ((index, argument) in descriptor.argumentTypes.withIndex()) {
                method.visitVarInsn(argument.getOpcode(Opcodes.ILOAD), slot)
                slot += argument.size
                if (index == 0) method.visitMethodInsn(Opcodes.INVOKESTATIC, target.valueClass, BOX, target.boxDescriptor, false)
            }
            method.visitMethodInsn(Opcodes.INVOKEVIRTUAL, target.valueClass, target.name, target.descriptor, false)
            method.visitInsn(descriptor.returnType.getOpcode(Opcodes.IRETURN))
            method.visitMaxs(slot + 2, slot)
            method.visitEnd()
        }

        /** Plain-named methods calling the mangled ones that override what an earlier snippet's class declares plainly. */
        private fun addPlainOverrides() {
            val self = known[className] ?: return
            val added = HashSet<String>()
            for ((method, access) in self.methods.entries()) {
                if (access and (Opcodes.ACC_STATIC or Opcodes.ACC_PRIVATE) != 0) continue
                val name = method.substringBefore('(')
                val descriptor = method.substring(name.length)
                val plain = plainName(name) ?: continue
                if (plain.onValue || plain.name + descriptor in self.methods || !added.add(plain.name + descriptor)) continue
                val inherited = inheritedAccess(self, plain.name + descriptor) ?: continue
                if (inherited and (Opcodes.ACC_STATIC or Opcodes.ACC_PRIVATE or Opcodes.ACC_FINAL) != 0) continue
                val type = Type.getMethodType(descriptor)
                val bridge = super.visitMethod(Opcodes.ACC_PUBLIC or Opcodes.ACC_SYNTHETIC, plain.name, descriptor, null, null)
                bridge.visitCode()
                bridge.visitVarInsn(Opcodes.ALOAD, 0)
                var slot = 1
                for (argument in type.argumentTypes) {
                    bridge.visitVarInsn(argument.getOpcode(Opcodes.ILOAD), slot)
                    slot += argument.size
                }
                bridge.visitMethodInsn(
                    if (isInterface) Opcodes.INVOKEINTERFACE else Opcodes.INVOKEVIRTUAL,
                    className,
                    name,
                    descriptor,
                    isInterface,
                )
                bridge.visitInsn(type.returnType.getOpcode(Opcodes.IRETURN))
                bridge.visitMaxs(maxOf(slot, type.returnType.size), slot)
                bridge.visitEnd()
                onChange()
            }
        }
    }

    /** Where a call of [owner].[name][descriptor] has to go instead, or null if it stays. */
    private fun target(opcode: Int, owner: String, name: String, descriptor: String): Target? {
        val ownerClass = known[owner] ?: return null
        if (access(ownerClass, name + descriptor) != null) return null
        val plain = plainName(name) ?: return null
        val isStatic = opcode == Opcodes.INVOKESTATIC
        val access = access(ownerClass, plain.name + descriptor)
        if (access != null && (access and Opcodes.ACC_STATIC != 0) == isStatic) return Rename(plain.name)
        if (isStatic && ownerClass.isValueClass) {
            val arguments = Type.getArgumentTypes(descriptor)
            if (arguments.isEmpty()) return null
            val instanceDescriptor = Type.getMethodDescriptor(Type.getReturnType(descriptor), *arguments.copyOfRange(1, arguments.size))
            val box = ownerClass.methods.box ?: return null
            val boxDescriptor = box.removePrefix(BOX)
            if (Type.getArgumentTypes(boxDescriptor).singleOrNull() != arguments[0]) return null
            val instance = ownerClass.methods[plain.name + instanceDescriptor] ?: return null
            if (instance and Opcodes.ACC_STATIC == 0) return OnBoxed(owner, boxDescriptor, plain.name, instanceDescriptor)
        }
        // an internal declaration has its module's name appended: `name$snippet1_kts`, `name$snippet1_kts$default`
        val base = plain.name.removeSuffix(DEFAULT)
        if (!plain.onValue && !base.contains('$')) {
            val suffix = plain.name.substring(base.length)
            val internal = ownerClass.methods.entries().firstOrNull { (method, methodAccess) ->
                val methodName = method.substringBefore('(')
                methodName.startsWith("$base$") && methodName.endsWith(suffix) && method.substring(methodName.length) == descriptor &&
                    (methodAccess and Opcodes.ACC_STATIC != 0) == isStatic
            }
            if (internal != null) return Rename(internal.first.substringBefore('('))
        }
        return null
    }

    /** The access flags of [method] (name and descriptor) in [type] or the nearest known class it extends, if any. */
    private fun access(type: KnownClass, method: String): Int? {
        type.methods[method]?.let { return it }
        return inheritedAccess(type, method)
    }

    private fun inheritedAccess(type: KnownClass, method: String): Int? {
        for (parent in listOfNotNull(type.superName) + type.interfaces) {
            val parentClass = known[parent] ?: continue
            access(parentClass, method)?.let { return it }
        }
        return null
    }

    /** [name] without its mangling; [onValue] if it names a member of a value class taking the unboxed value. */
    private class PlainName(val name: String, val onValue: Boolean)

    private fun plainName(mangled: String): PlainName? {
        val match = MANGLED.matchEntire(mangled) ?: return null
        val (name, hash, impl, default) = match.destructured
        if (hash.isEmpty() && impl.isEmpty()) return null
        return PlainName(name + default, impl.isNotEmpty())
    }

    private companion object {
        const val BOX = "box-impl"
        const val ADAPTER = "\$valueClassCall\$"
        const val DEFAULT = "\$default"
        val METHOD_DESCRIPTOR = Regex("""\((\[*([ZBCSIJFD]|L[^;]+;))*\)(V|\[*([ZBCSIJFD]|L[^;]+;))""")

        /**
         * A mangled name: `name-hash` (the hash is 7 characters of base64, with `-` and `_`), `name-impl` (a member of a
         * value class), either with `$default` (its overload filling in default arguments).
         */
        val MANGLED = Regex("(.+?)(-[A-Za-z0-9_-]{7})?(-impl)?(\\$DEFAULT)?")
    }
}
