package org.kotlinllm.script.runtime

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

    private fun refuse(call: String): Nothing =
        throw ExitRefusedException("$call was refused: a snippet cannot end the kernel; to end the session, restart the kernel")
}
