package org.kotlinllm.script.diagnostics

/**
 * The only texts of the compiler the engine reads, each where no name says what is needed: a detail inside the message
 * of a named diagnostic (a type, a candidate), or the message of an exception the compiler crashed with, which has
 * no name. Everything else is decided on [DiagnosticNames]. DiagnosticNamesTest checks each against a real message of
 * the compiler the engine is built with, as a compiler upgrade may reword one.
 */
internal object CompilerTexts {
    /**
     * The receiver's type in an [DiagnosticNames.UNRESOLVED_REFERENCE] of a member (`Unresolved reference 'lenght' on
     * receiver of type 'String'.`), group 1: the type whose extensions the hints look for; the name does not say
     * whether there is a receiver.
     */
    val RECEIVER_TYPE: Regex = Regex("""on receiver of type '([^']+)'""")

    /**
     * The candidates of kotlinx.coroutines (a default import) that an [DiagnosticNames.UNRESOLVED_REFERENCE_WRONG_RECEIVER]
     * lists for a missing call (`s.length()`) or `plus`: only the message names the candidates it tried.
     */
    val COROUTINES_CANDIDATE: Regex = Regex("""CoroutineDispatcher\.invoke\(|CoroutineScope\.plus\(""")

    /**
     * An [DiagnosticNames.ASSIGNMENT_TYPE_MISMATCH] whose expected type is a DataFrame of one type argument, group 1
     * its simple name (the engine's markers for column accessors are among them): only the message names the types.
     */
    val FRAME_MARKER_EXPECTED: Regex = Regex(
        """^Assignment type mismatch: actual type is '[^']*', but '(?:[\w.]+\.)?DataFrame<(?:[\w.]+\.)?(\w+)>' was expected""",
    )

    /**
     * The crash of the compiler's constant evaluator on a `const val` of an earlier snippet (KT-77816), group 1 the
     * constant's name: an exception's message, no diagnostic.
     */
    val UNKNOWN_CONSTANT: Regex = Regex("""Unknown function: (\w+)\(Snippet\d+[.\w]*\)""")

    /**
     * The crash of the compiler's backend on `toString()`, `hashCode()` or `equals()` of a data class nested in a class
     * of an earlier snippet, group 1 the member: an exception's message, no diagnostic.
     */
    val NESTED_DATA_MEMBER: Regex =
        Regex("""Only componentN functions should be cached this way, but got: .*\bfun (toString|hashCode|equals)\(""")
}
