package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals

/** A `companion object` at the top level of a snippet is declared as an object of that name, as Kotlin notebooks do. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TopLevelCompanionTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    @Test
    fun `a top-level companion object is an object of its name, in its snippet and later ones`() {
        val declared = run(
            "companion object ConstDemo {\n    const val NAME = \"Kotlin\"\n    val nameLowered = NAME.lowercase()\n}\nConstDemo.NAME",
        )
        assertEquals("Kotlin", declared.assertValue().value)
        assertEquals("kotlin", run("ConstDemo.nameLowered").assertValue().value)
    }

    @Test
    fun `another error beside it is reported in the user's text`() {
        val message = run("companion object Broken { val n: Int = \"x\" }").assertError(ExecutionPhase.COMPILATION).message
        assertEquals(
            "snippet${session.lastSnippetNumber}.kts:1:38: error: Initializer type mismatch: expected 'Int', actual 'String'.\n" +
                "  | companion object Broken { val n: Int <error>=</error> \"x\" }",
            message,
        )
    }
}
