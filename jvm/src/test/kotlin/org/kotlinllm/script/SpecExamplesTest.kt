package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals

/** The examples of the specification, to the character. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SpecExamplesTest {

    @Test
    fun `the usage example greets Alice and Bob`() = runBlocking {
        ScriptSession { "greeting" provides "Hello" }.use { session ->
            session.execute(
                """
                val names = mutableListOf("Alice")
                fun greet() = "${'$'}greeting ${'$'}{names.joinToString()}"
                """.trimIndent(),
            ).assertValue()
            session.execute("names += \"Bob\"").assertValue()
            assertEquals("HELLO ALICE, BOB", session.execute("greet().uppercase()").assertValue().value)
        }
    }

    @Test
    fun `a compile error of the third snippet reads as in the specification`() = runBlocking {
        ScriptSession().use { session ->
            session.execute("val a1 = 1").assertValue()
            session.execute("println(\"hello\")").assertValue()
            val error = session.execute("asdf\nprintln(foo)").assertError(ExecutionPhase.COMPILATION)
            assertEquals(
                """
                snippet3.kts:1:1: error: Unresolved reference 'asdf'.
                  | <error>asdf</error>

                snippet3.kts:2:9: error: Unresolved reference 'foo'.
                  | println(<error>foo</error>)
                """.trimIndent(),
                error.message,
            )
        }
    }

    @Test
    fun `a runtime error shows the frames of the snippets with their source lines`() = runBlocking {
        ScriptSession().use { session ->
            session.execute(
                """
                fun check(value: Int) {
                    require(value > 0) { "value must be positive" }
                }
                """.trimIndent(),
            ).assertValue()
            val error = session.execute("val values = listOf(1, -1)\nvalues.forEach { check(it) }")
                .assertError(ExecutionPhase.EVALUATION)
            assertEquals(
                """
                java.lang.IllegalArgumentException: value must be positive
                  at check(snippet1.kts:2)
                  |     require(value > 0) { "value must be positive" }
                  at <snippet body>(snippet2.kts:2)
                  | values.forEach { check(it) }
                """.trimIndent(),
                error.message,
            )
        }
    }
}
