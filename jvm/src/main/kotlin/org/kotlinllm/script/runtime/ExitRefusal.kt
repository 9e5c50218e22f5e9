package org.kotlinllm.script.runtime

import java.lang.invoke.MethodHandle
import java.lang.invoke.MethodHandles
import java.lang.invoke.MethodType
import java.lang.reflect.Method
import java.lang.reflect.Modifier

/**
 * Thrown where a snippet calls `System.exit`, `Runtime.exit`, `Runtime.halt` or `exitProcess`: the process running
 * the session is shared by all of its snippets (a notebook's kernel), so no snippet may end it. A [SecurityException],
 * as `System.exit` threw when a security manager refused it.
 */
public class ExitRefusedException(message: String) : SecurityException(message)

/**
 * Where the engine redirects the calls that would end the process from the snippets' bytecode (see SnippetBytecode).
 * Public only because compiled snippets call it.
 */
public object ExitRefusal {

    /** Instead of `System.exit(status)`, which `exitProcess` calls too. */
    @JvmStatic
    public fun systemExit(status: Int): Unit = refuse("System.exit($status)")

    /** Instead of `runtime.exit(status)`. */
    @JvmStatic
    public fun runtimeExit(runtime: Runtime, status: Int): Unit = refuse("Runtime.exit($status)")

    /** Instead of `runtime.halt(status)`. */
    @JvmStatic
    public fun runtimeHalt(runtime: Runtime, status: Int): Unit = refuse("Runtime.halt($status)")

    /**
     * Before `method.invoke(target, *arguments)`: refuses a method that ends the process, and otherwise returns
     * [arguments] for the call, which stays in the snippet (`Method.invoke` checks access for its caller).
     */
    @JvmStatic
    public fun checkInvoke(method: Method, arguments: Array<Any?>?): Array<Any?>? {
        val exit = exitOf(method.declaringClass, method.name, method.parameterTypes, Modifier.isStatic(method.modifiers))
        if (exit != null) refuse("$exit(${arguments?.joinToString()})")
        return arguments
    }

    /** Instead of `lookup.findStatic(owner, name, type)`. */
    @JvmStatic
    public fun findStatic(lookup: MethodHandles.Lookup, owner: Class<*>, name: String, type: MethodType): MethodHandle {
        exitOf(owner, name, type.parameterArray(), static = true)?.let(::refuseHandle)
        return lookup.findStatic(owner, name, type)
    }

    /** Instead of `lookup.findVirtual(owner, name, type)`. */
    @JvmStatic
    public fun findVirtual(lookup: MethodHandles.Lookup, owner: Class<*>, name: String, type: MethodType): MethodHandle {
        exitOf(owner, name, type.parameterArray(), static = false)?.let(::refuseHandle)
        return lookup.findVirtual(owner, name, type)
    }

    /** Instead of `lookup.unreflect(method)`. */
    @JvmStatic
    public fun unreflect(lookup: MethodHandles.Lookup, method: Method): MethodHandle {
        exitOf(method.declaringClass, method.name, method.parameterTypes, Modifier.isStatic(method.modifiers))?.let(::refuseHandle)
        return lookup.unreflect(method)
    }

    /** `System.exit`, `Runtime.exit` or `Runtime.halt` if that is the method meant, else null. */
    private fun exitOf(owner: Class<*>, name: String, parameters: Array<Class<*>>, static: Boolean): String? {
        if (parameters.size != 1 || parameters[0] != Int::class.javaPrimitiveType) return null
        return when {
            static && owner == System::class.java && name == "exit" -> "System.exit"
            !static && owner == Runtime::class.java && (name == "exit" || name == "halt") -> "Runtime.$name"
            else -> null
        }
    }

    private fun refuseHandle(exit: String): Nothing = refuse("a method handle of $exit(int)")

    private fun refuse(call: String): Nothing =
        throw ExitRefusedException("$call was refused: a snippet cannot end the kernel; to end the session, restart the kernel")
}
