package org.kotlinllm.script.internal.bytecode

import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassVisitor
import org.jetbrains.org.objectweb.asm.ClassWriter
import org.jetbrains.org.objectweb.asm.Handle
import org.jetbrains.org.objectweb.asm.Label
import org.jetbrains.org.objectweb.asm.MethodVisitor
import org.jetbrains.org.objectweb.asm.Opcodes
import org.jetbrains.org.objectweb.asm.Type
import org.kotlinllm.script.runtime.ContextClassLoader
import org.kotlinllm.script.runtime.ExitRefusal
import org.kotlinllm.script.runtime.Interruption

/**
 * Rewrites the class files of a compiled snippet before they are loaded: every loop calls [Interruption.check] once
 * per iteration, before its backward jump, and every method (but constructors) on entry, which makes busy loops
 * cancellable on every JDK, also loops of library code calling back a snippet's lambda; and the snippet's body
 * starts with [ContextClassLoader.setToLoaderOf], so libraries find the services and resources of its
 * `@file:DependsOn` jars. Calls of `System.exit`, `Runtime.exit` and `Runtime.halt` (`exitProcess` is inline and calls
 * `System.exit`), also as method references, call [ExitRefusal] instead, which throws: the process is the whole
 * session's; so do the reflective ways to them: `Method.invoke` is checked first, and `MethodHandles.Lookup`'s
 * `findStatic`, `findVirtual` and `unreflect` go through checks. The calls between snippets of declarations with value classes in their signature are
 * repaired by [ValueClassCalls].
 */
internal object SnippetBytecode {

    private val interruption = Type.getInternalName(Interruption::class.java)
    private val contextClassLoader = Type.getInternalName(ContextClassLoader::class.java)
    private val exitRefusal = Type.getInternalName(ExitRefusal::class.java)

    /** The methods that end the process, by owner, name and descriptor, and the method of [ExitRefusal] replacing each. */
    private val exits = mapOf(
        "java/lang/System.exit(I)V" to Handle(Opcodes.H_INVOKESTATIC, exitRefusal, "systemExit", "(I)V", false),
        "java/lang/Runtime.exit(I)V" to Handle(Opcodes.H_INVOKESTATIC, exitRefusal, "runtimeExit", "(Ljava/lang/Runtime;I)V", false),
        "java/lang/Runtime.halt(I)V" to Handle(Opcodes.H_INVOKESTATIC, exitRefusal, "runtimeHalt", "(Ljava/lang/Runtime;I)V", false),
    )

    private fun exitReplacing(owner: String, name: String, descriptor: String): Handle? = exits["$owner.$name$descriptor"]

    private const val LOOKUP = "java/lang/invoke/MethodHandles\$Lookup"
    private const val HANDLE = "Ljava/lang/invoke/MethodHandle;"
    private const val FIND = "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/invoke/MethodType;)$HANDLE"
    private const val INVOKE = "java/lang/reflect/Method.invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;"

    /** The instance methods of `MethodHandles.Lookup` finding a method handle, to their checking replacements. */
    private val lookups = mapOf(
        "$LOOKUP.findStatic$FIND" to "(L$LOOKUP;${FIND.drop(1)}",
        "$LOOKUP.findVirtual$FIND" to "(L$LOOKUP;${FIND.drop(1)}",
        "$LOOKUP.unreflect(Ljava/lang/reflect/Method;)$HANDLE" to "(L$LOOKUP;Ljava/lang/reflect/Method;)$HANDLE",
    )

    /** A method handle (of a method reference or lambda) to a method ending the process, to its replacement. */
    private fun refusingExit(value: Any?): Any? {
        if (value !is Handle || (value.tag != Opcodes.H_INVOKESTATIC && value.tag != Opcodes.H_INVOKEVIRTUAL)) return value
        return exitReplacing(value.owner, value.name, value.desc) ?: value
    }

    /**
     * Instruments the class files of [classFiles] in place (the compiler's class loader reads them from there), with
     * [valueClassCalls] knowing the classes of the session's earlier snippets.
     */
    fun instrument(classFiles: MutableMap<String, ByteArray>, valueClassCalls: ValueClassCalls) {
        val classes = classFiles.filterKeys { it.endsWith(".class") }
        valueClassCalls.learn(classes.values)
        for ((path, bytes) in classes) classFiles[path] = instrument(bytes, valueClassCalls)
    }

    private fun instrument(bytes: ByteArray, valueClassCalls: ValueClassCalls): ByteArray {
        val reader = ClassReader(bytes)
        val writer = ClassWriter(reader, 0)
        val instrumenting = InstrumentingClass(writer, reader.className)
        reader.accept(valueClassCalls.rewrite(instrumenting) { instrumenting.changed = true }, 0)
        // an unchanged class keeps its bytes: writing them again would only cost time
        return if (instrumenting.changed) writer.toByteArray() else bytes
    }

    /** Instruments each method of the class [className]; [changed] says whether any instruction was added or replaced. */
    private class InstrumentingClass(next: ClassVisitor, private val className: String) : ClassVisitor(Opcodes.ASM9, next) {
        var changed = false

        override fun visitMethod(
            access: Int,
            name: String?,
            descriptor: String?,
            signature: String?,
            exceptions: Array<out String>?,
        ): MethodVisitor {
            val next = super.visitMethod(access, name, descriptor, signature, exceptions)
            val isSnippetBody = name == SNIPPET_BODY && SNIPPET_CLASS.matches(className)
            val isInitializer = name == "<init>" || name == "<clinit>"
            return InstrumentingMethod(next, this, className, isSnippetBody, isInitializer)
        }
    }

    /**
     * Instruments one method of the class [className]: an interruption check on entry (but in [isInitializer]) and
     * before every backward jump, the context class loader set at the start of the [isSnippetBody], and the calls
     * ending the process replaced; it marks [instrumented] changed when it changes anything.
     */
    private class InstrumentingMethod(
        next: MethodVisitor,
        private val instrumented: InstrumentingClass,
        private val className: String,
        private val isSnippetBody: Boolean,
        private val isInitializer: Boolean,
    ) : MethodVisitor(Opcodes.ASM9, next) {
        private val visited = HashSet<Label>()

        /** Whether a `Method.invoke` check was inserted, which needs 2 more stack slots. */
        private var checksInvoke = false

        override fun visitCode() {
            super.visitCode()
            if (!isInitializer) {
                // a lambda called over and over by a loop in library code (IntStream.forEach) stops here
                super.visitMethodInsn(Opcodes.INVOKESTATIC, interruption, "check", "()V", false)
                instrumented.changed = true
            }
            if (isSnippetBody) {
                super.visitLdcInsn(Type.getObjectType(className))
                super.visitMethodInsn(
                    Opcodes.INVOKESTATIC,
                    contextClassLoader,
                    "setToLoaderOf",
                    "(Ljava/lang/Class;)V",
                    false,
                )
                instrumented.changed = true
            }
        }

        override fun visitLabel(label: Label) {
            visited += label
            super.visitLabel(label)
        }

        override fun visitJumpInsn(opcode: Int, label: Label) {
            // a jump to a label already visited goes backwards: it closes a loop
            if (label in visited) {
                super.visitMethodInsn(Opcodes.INVOKESTATIC, interruption, "check", "()V", false)
                instrumented.changed = true
            }
            super.visitJumpInsn(opcode, label)
        }

        override fun visitMethodInsn(opcode: Int, owner: String, name: String, descriptor: String, isInterface: Boolean) {
            if (opcode == Opcodes.INVOKEVIRTUAL && !isInterface && visitedReflectiveCall(opcode, owner, name, descriptor)) return
            val replacement = if (opcode == Opcodes.INVOKESTATIC || opcode == Opcodes.INVOKEVIRTUAL) {
                exitReplacing(owner, name, descriptor)
            } else {
                null
            }
            if (replacement == null) return super.visitMethodInsn(opcode, owner, name, descriptor, isInterface)
            super.visitMethodInsn(Opcodes.INVOKESTATIC, replacement.owner, replacement.name, replacement.desc, false)
            instrumented.changed = true
        }

        /**
         * Visits a virtual call of a `MethodHandles.Lookup` method finding a handle (replaced by its checking
         * replacement) or of `Method.invoke` (checked first), returning whether the call was one of them.
         */
        private fun visitedReflectiveCall(opcode: Int, owner: String, name: String, descriptor: String): Boolean {
            val call = "$owner.$name$descriptor"
            lookups[call]?.let { checking ->
                super.visitMethodInsn(Opcodes.INVOKESTATIC, exitRefusal, name, checking, false)
                instrumented.changed = true
                return true
            }
            if (call != INVOKE) return false
            checkInvoke()
            super.visitMethodInsn(opcode, owner, name, descriptor, false)
            return true
        }

        /**
         * Method, target, arguments on the stack: [ExitRefusal.checkInvoke] gets the method and the
         * arguments, and they are left as they were for the call.
         */
        private fun checkInvoke() {
            super.visitInsn(Opcodes.DUP2_X1) // target, arguments, method, target, arguments
            super.visitInsn(Opcodes.POP2) // target, arguments, method
            super.visitInsn(Opcodes.DUP_X2) // method, target, arguments, method
            super.visitInsn(Opcodes.SWAP) // method, target, method, arguments
            super.visitMethodInsn(
                Opcodes.INVOKESTATIC,
                exitRefusal,
                "checkInvoke",
                "(Ljava/lang/reflect/Method;[Ljava/lang/Object;)[Ljava/lang/Object;",
                false,
            ) // method, target, arguments
            checksInvoke = true
            instrumented.changed = true
        }

        override fun visitInvokeDynamicInsn(name: String?, descriptor: String?, bootstrap: Handle?, vararg arguments: Any?) {
            val replaced = arguments.map(::refusingExit)
            if (replaced.indices.any { replaced[it] !== arguments[it] }) instrumented.changed = true
            super.visitInvokeDynamicInsn(name, descriptor, bootstrap, *replaced.toTypedArray())
        }

        override fun visitLdcInsn(value: Any?) {
            val replaced = refusingExit(value)
            if (replaced !== value) instrumented.changed = true
            super.visitLdcInsn(replaced)
        }

        override fun visitMaxs(maxStack: Int, maxLocals: Int) {
            super.visitMaxs(if (checksInvoke) maxStack + 2 else maxOf(maxStack, 1), maxLocals)
        }
    }

    private const val SNIPPET_BODY = "\$\$eval"
    private val SNIPPET_CLASS = Regex("Snippet\\d+")
}
