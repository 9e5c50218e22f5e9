@file:JvmName("InputFunctions")

package org.kotlinllm.script.runtime

import java.io.EOFException

/**
 * Thrown at once by a read of `System.in` (`readLine()`, `readln()`, a `Scanner`, a `BufferedReader`, …) and by
 * [readPassword] when nobody can answer it: the host did not allow input for the running snippet, no snippet is
 * running, or the snippet ended while the read waited. Unchecked, so that readers that swallow an `IOException`
 * (`Scanner`) cannot turn it into a silent end of input.
 */
public class StdinNotAllowedException(message: String) : IllegalStateException(message)

/**
 * Asks the host for a password (a Jupyter `input_request` with `password = true`, so the frontend hides what is
 * typed) and returns it; [EOFException] when the answer is the end of input. Outside a host session it reads from
 * the console without echo, else a line of `System.in`.
 */
public fun readPassword(prompt: String = "Password: "): String =
    PasswordInput.read(prompt) ?: throw EOFException("the input ended before a password was given")

/** Where [readPassword] asks: the engine's input routing once a host session exists, else the console. */
internal object PasswordInput {

    /** Set by the engine when it routes `System.in`: a password for the calling code, null at the end of input. */
    @Volatile
    var fromHost: ((prompt: String) -> String?)? = null

    fun read(prompt: String): String? = fromHost.let { host -> if (host != null) host(prompt) else fromConsole(prompt) }

    /** Without echo from the process's console when it has one, else a line of `System.in` after the prompt. */
    fun fromConsole(prompt: String): String? {
        System.console()?.let { console -> return console.readPassword("%s", prompt)?.let(::String) }
        print(prompt)
        System.out.flush()
        return readlnOrNull()
    }
}
