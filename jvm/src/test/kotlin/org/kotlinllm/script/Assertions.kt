package org.kotlinllm.script

import kotlin.test.assertEquals
import kotlin.test.assertIs

fun ScriptResult.assertValue(): ScriptResult.Value {
    if (this is ScriptResult.Error) throw AssertionError("expected a value, got a $phase error:\n$message")
    return assertIs<ScriptResult.Value>(this)
}

fun ScriptResult.assertError(phase: ExecutionPhase): ScriptResult.Error {
    if (this is ScriptResult.Value) throw AssertionError("expected a $phase error, got the value $value")
    val error = assertIs<ScriptResult.Error>(this)
    assertEquals(phase, error.phase, "phase of:\n${error.message}")
    return error
}
