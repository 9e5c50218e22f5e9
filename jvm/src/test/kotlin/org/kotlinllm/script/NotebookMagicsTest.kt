package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.reflect.KFunction
import kotlin.test.assertEquals
import kotlin.test.assertIs

/**
 * JetBrains' magics and REPL commands (but `%use`: see UseMagicTest) get an error naming this kernel's equivalent, and
 * valid Kotlin is never one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NotebookMagicsTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    /** The compile error of [code], `snippetN.kts` in [expected] standing for its name. */
    private fun assertMagic(code: String, expected: String) {
        val error = run(code).assertError(ExecutionPhase.COMPILATION)
        assertEquals(expected.replace("snippetN.kts", "snippet${session.lastSnippetNumber}.kts"), error.message)
    }

    @Test
    fun `other magics and commands, each at its line, and nothing of the cell runs`() {
        run("val kept = 1").assertValue()
        assertMagic(
            "val lost = 2\n  :vars\n%trackClasspath\n:help\n%noSuchMagic on",
            """
            snippetN.kts:2:3: error: `:vars` is a REPL command of JetBrains' Kotlin kernel; this kernel has no commands
              |   <error>:vars</error>
            hint: call vars(): it lists the session's declarations with their types and values

            snippetN.kts:3:1: error: `%trackClasspath` is a line magic of JetBrains' Kotlin kernel; this kernel has no magics
              | <error>%trackClasspath</error>
            hint: @file:DependsOn("group:artifact") adds a library to the classpath, and a cell using it reports the versions it resolved

            snippetN.kts:4:1: error: `:help` is a REPL command of JetBrains' Kotlin kernel; this kernel has no commands
              | <error>:help</error>
            hint: cells are plain Kotlin: @file:DependsOn("group:artifact") adds a library, vars() lists the declarations, DISPLAY/HTML/Image show rich output; the kernel's README tells the rest

            snippetN.kts:5:1: error: `%noSuchMagic` looks like a line magic of JetBrains' Kotlin kernel; this kernel has no magics, and no Kotlin statement starts with `%`
              | <error>%noSuchMagic on</error>
            hint: write Kotlin: @file:DependsOn("group:artifact") adds a library, vars() lists the declarations
            """.trimIndent(),
        )
        assertEquals(1, run("kept").assertValue().value)
        val lost = run("lost").assertError(ExecutionPhase.COMPILATION)
        assertEquals(
            "snippet${session.lastSnippetNumber}.kts:1:1: error: Unresolved reference 'lost'.\n  | <error>lost</error>",
            lost.message,
        )
    }

    @Test
    fun `valid Kotlin with a line starting with a colon or a percent sign is no magic`() {
        val code = "fun twice(x: Int) = 2 * x\n" +
            "val text = \"\"\"\n%use lets-plot\n:help\n\"\"\"\n" +
            "/*\n%use dataframe\n:vars\n*/\n" +
            "open class Base\n" +
            "class Derived\n    : Base()\n" +
            "fun typed()\n    : Int = (17\n    % 5)\n" +
            "::twice\n"
        assertIs<KFunction<*>>(run(code).assertValue().value)
        assertEquals(2, run("typed()").assertValue().value)
    }

    @Test
    fun `a magic inside a function body is left to the parser`() {
        assertMagic(
            "fun f() {\n    %use dataframe\n}",
            "snippetN.kts:2:5: error: Syntax error: Expecting an element.\n  |     <error>%</error>use dataframe\n\n" +
                "snippetN.kts:2:19: error: Syntax error: Expecting an element.\n  |     %use dataframe<error></error>",
        )
    }
}
