@file:JvmName("VarsFunctions")

package org.kotlinllm.script.runtime

/**
 * The declarations [vars] found, one [lines] entry each: `val xs: List<Int> = [1, 2, 3]`, `var n: Int = 5`,
 * `fun greet(name: String, times: Int = 1): String`, `class P`.
 */
public class SessionVars internal constructor(public val lines: List<String>) {
    override fun toString(): String = if (lines.isEmpty()) NONE else lines.joinToString("\n")

    private companion object {
        const val NONE = "no declarations yet"
    }
}

/**
 * The session's declarations visible now (the newest of each name; the calling snippet's own last, its properties
 * above the calling line), with their declared types as the compiler resolved them, and the current value of each
 * property (the first line of its text, cut); the `:vars` of Kotlin notebooks. Outside a session it lists nothing.
 */
public fun vars(): SessionVars = SessionVars(SessionContext.currentOrOnly()?.declarations?.listing().orEmpty())

/** What [vars] reads: the declarations of one session (the engine's SessionSymbols). */
internal fun interface DeclarationListing {
    fun listing(): List<String>
}
