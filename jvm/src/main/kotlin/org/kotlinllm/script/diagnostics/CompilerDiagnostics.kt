package org.kotlinllm.script.diagnostics

import kotlin.script.experimental.api.ScriptDiagnostic

/**
 * The compiler renders each diagnostic's name before its message (`[UNRESOLVED_REFERENCE] Unresolved reference 'x'.`,
 * asked for with `-Xrender-internal-diagnostic-names` in [ReplCompilerHost]): the name is the fact the hints and the
 * hosts decide on; [text] is kotlinc's own message without it.
 */
internal object CompilerDiagnostics {
    /** The option that makes the compiler name its diagnostics. */
    const val OPTION: String = "-Xrender-internal-diagnostic-names=true"

    private val named = Regex("""^\[([A-Z][A-Z0-9_]*)] """)

    /** The compiler's name of [diagnostic] (`UNRESOLVED_REFERENCE`), or null for a report without one. */
    fun name(diagnostic: ScriptDiagnostic): String? = named.find(diagnostic.message)?.groupValues?.get(1)

    /** The message of [diagnostic] as kotlinc prints it, without its name. */
    fun text(diagnostic: ScriptDiagnostic): String = diagnostic.message.replaceFirst(named, "")
}
