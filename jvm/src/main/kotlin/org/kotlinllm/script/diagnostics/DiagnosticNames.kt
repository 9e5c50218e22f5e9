package org.kotlinllm.script.diagnostics

/**
 * The compiler's names of the diagnostics the engine decides on ([CompilerDiagnostics.name] gives a report's name):
 * every comparison with a name uses these. DiagnosticNamesTest compiles a snippet for each on the compiler the engine
 * is built with and checks it is reported so, as a compiler upgrade may rename one.
 */
internal object DiagnosticNames {
    /** `Unresolved reference 'x'.`, with ` on receiver of type 'T'` for a member: hints give its imports and names. */
    const val UNRESOLVED_REFERENCE: String = "UNRESOLVED_REFERENCE"

    /** An import that does not resolve: hints name the library that brings it. */
    const val UNRESOLVED_IMPORT: String = "UNRESOLVED_IMPORT"

    /**
     * A call whose candidates all need another receiver: how the default import `kotlinx.coroutines.*` turns a missing
     * call or `plus` into its `CoroutineDispatcher.invoke` or `CoroutineScope.plus` ([CompilerTexts.COROUTINES_CANDIDATE]).
     */
    const val UNRESOLVED_REFERENCE_WRONG_RECEIVER: String = "UNRESOLVED_REFERENCE_WRONG_RECEIVER"

    /** Calling what is no function (`s.length()`): hints say to drop the parentheses. */
    const val FUNCTION_EXPECTED: String = "FUNCTION_EXPECTED"

    /** A type parameter of a call that cannot be inferred: follows from an error in the call's arguments, if any. */
    const val CANNOT_INFER_PARAMETER_TYPE: String = "CANNOT_INFER_PARAMETER_TYPE"

    /** A lambda's parameter whose type cannot be inferred: follows from an error in the call's arguments, if any. */
    const val CANNOT_INFER_VALUE_PARAMETER_TYPE: String = "CANNOT_INFER_VALUE_PARAMETER_TYPE"

    /** A suspend call outside a coroutine: at the top level, the snippet is compiled again with it made suspending. */
    const val ILLEGAL_SUSPEND_FUNCTION_CALL: String = "ILLEGAL_SUSPEND_FUNCTION_CALL"

    /** A suspend property read outside a coroutine: treated as [ILLEGAL_SUSPEND_FUNCTION_CALL]. */
    const val ILLEGAL_SUSPEND_PROPERTY_ACCESS: String = "ILLEGAL_SUSPEND_PROPERTY_ACCESS"

    /** `Modifier 'companion' is not applicable inside 'file'`: a top-level companion, compiled again as an object. */
    const val WRONG_MODIFIER_CONTAINING_DECLARATION: String = "WRONG_MODIFIER_CONTAINING_DECLARATION"

    /** Another frame assigned to a `var` of a DataFrame marker type: compiled again with the frame cast to it. */
    const val ASSIGNMENT_TYPE_MISMATCH: String = "ASSIGNMENT_TYPE_MISMATCH"
}
