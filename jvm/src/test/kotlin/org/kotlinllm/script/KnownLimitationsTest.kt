package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals

/** Known bugs of the K2 REPL compiler that the engine works around. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KnownLimitationsTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    @Test
    fun `a value class property of an earlier snippet can be used, also one named with JvmName`() {
        run("import kotlin.time.Duration.Companion.seconds\nval timeoutV = 5.seconds").assertValue()
        assertEquals("5s", run("timeoutV").assertValue().value.toString())
        run("import kotlin.time.Duration.Companion.seconds\n@get:JvmName(\"timeoutV\") val timeoutV = 5.seconds").assertValue()
        assertEquals("5s", run("timeoutV").assertValue().value.toString())
    }

    @Test
    fun `inline functions of earlier snippets can be called`() {
        run("inline fun twice(block: () -> Int) = block() + block()\ninline fun <reified T> typeName() = T::class.simpleName").assertValue()
        assertEquals(8, run("twice { 4 }").assertValue().value)
        assertEquals("Int", run("typeName<Int>()").assertValue().value)
    }

    @Test
    fun `functions of snippets can use await, launch and coroutineContext, also inline ones`() {
        run(
            "fun fetchAnswer(): Int = await { delay(1); 42 }\ninline fun context() = coroutineContext\nfun start(): Job = launch { }",
        ).assertValue()
        assertEquals(42, run("fetchAnswer()").assertValue().value)
        assertEquals(true, run("context().isActive && start().let { true }").assertValue().value)
        assertEquals(7, run("fun inSameSnippet(): Int = await { 7 }\ninSameSnippet()").assertValue().value)
    }

    @Test
    fun `a const val of an earlier snippet gets the hint to declare it again without const`() {
        // KT-77816, still on 2.4.21: top-level and companion constants alike (an object's: DiagnosticsTest)
        val cases = listOf(
            "const val LIMIT_K = 3" to ("LIMIT_K + 1" to "LIMIT_K(Snippet%d)"),
            "class WithLimit { companion object { const val CAP = 5 } }" to ("WithLimit.CAP" to "CAP(WithLimit.Companion)"),
        )
        for ((declaration, use) in cases) {
            val (code, function) = use
            run(declaration).assertValue()
            val declaredIn = session.lastSnippetNumber
            val name = function.substringBefore('(')
            val column = code.indexOf(name) + 1
            assertEquals(
                "snippet${declaredIn + 1}.kts:1:$column: error: The Kotlin compiler failed internally " +
                    "(InterpreterMethodNotFoundError: Unknown function: ${function.format(declaredIn)})\n" +
                    "  | ${code.replace(name, "<error>$name</error>")}\n" +
                    "hint: a known bug of the K2 REPL compiler: the const val '$name' of an earlier snippet cannot be used here; " +
                    "declare it again without 'const'",
                run(code).assertError(ExecutionPhase.COMPILATION).message,
            )
        }
    }

    @Test
    fun `a data class nested in an earlier snippet's class gets the hint to call its toString through Any`() {
        run("class Holder { data class Nested(val n: Int) }\nval nestedValue = Holder.Nested(1)").assertValue()
        val number = session.lastSnippetNumber + 1
        assertEquals(
            "snippet$number.kts:1:13: error: The Kotlin compiler failed internally (IllegalArgumentException: Only componentN " +
                "functions should be cached this way, but got: public open fun toString(): R|kotlin/String|)\n" +
                "  | nestedValue.<error>toString</error>()\n" +
                "hint: a known bug of the K2 REPL compiler: toString() of a data class nested in a class of an earlier snippet " +
                "cannot be called on it here; call it on the value as Any ((value as Any).toString()), or declare the data " +
                "class at top level",
            run("nestedValue.toString()").assertError(ExecutionPhase.COMPILATION).message,
        )
        assertEquals("Nested(n=1)", run("(nestedValue as Any).toString()").assertValue().value)
        assertEquals(true, run("nestedValue == Holder.Nested(1)").assertValue().value)
    }
}
