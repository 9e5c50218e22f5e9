package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.kotlinllm.script.internal.compiler.source.UseMagic
import java.io.File
import kotlin.reflect.KFunction
import kotlin.test.assertEquals
import kotlin.test.assertIs

/**
 * JetBrains' magics and REPL commands but `%use` (see UseMagicTest): the commands' values, the notices of the magics
 * that have no meaning here, the errors of those this kernel does not know; valid Kotlin is never one. What the
 * magics print as later snippets run: MagicsOutputTest.
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
    fun `unknown magics and a command among other code are errors at their lines, and nothing of the cell runs`() {
        run("val kept = 1").assertValue()
        assertMagic(
            "val lost = 2\n  :vars\n%trackClasspath\n:nosuch\n%noSuchMagic on",
            """
            snippetN.kts:2:3: error: `:vars` is a REPL command: it runs as a cell of its own
              |   <error>:vars</error>
            hint: run it alone, or call vars() here

            snippetN.kts:4:1: error: `:nosuch` is not a REPL command of this kernel, and no Kotlin statement starts with `:`
              | <error>:nosuch</error>
            hint: a cell of its own `:help` lists the commands and magics

            snippetN.kts:5:1: error: `%noSuchMagic` is not a line magic of this kernel, and no Kotlin statement starts with `%`
              | <error>%noSuchMagic on</error>
            hint: a cell of its own `:help` lists the magics; @file:DependsOn("group:artifact") adds a library
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
    fun `magics without meaning here give a notice each, and the cell runs`() {
        val value = run(
            "%output --max-cell-size=1000 --no-stdout\n%logLevel debug\n%logLevel loud\n%logHandler list\n" +
                "%trackExecution maybe\n%trackClasspath on off\n%dumpClassesForSpark yes // for Spark\n20 + 22",
        ).assertValue()
        assertEquals(42, value.value)
        val name = "snippet${session.lastSnippetNumber}.kts"
        assertEquals(
            listOf(
                "$name:1:1: warning: `%output --max-cell-size=1000 --no-stdout`: ignored: this kernel sends a cell's output as it " +
                    "comes and cuts it past its setting max_output_chars\n  | <error>%output --max-cell-size=1000 --no-stdout</error>",
                "$name:2:1: warning: `%logLevel debug`: ignored: the engine's log level is set where its SLF4J provider is " +
                    "configured (the kernel runs it with none), the kernel's by its setting log_level\n  | <error>%logLevel debug</error>",
                "$name:3:1: warning: `%logLevel loud`: expected off, error, warn, info, debug, trace; ignored\n" +
                    "  | <error>%logLevel loud</error>",
                "$name:4:1: warning: `%logHandler list`: ignored: the engine has no log handlers to manage: it logs through SLF4J\n" +
                    "  | <error>%logHandler list</error>",
                "$name:5:1: warning: `%trackExecution maybe`: expected all, generated or off; tracking is unchanged\n" +
                    "  | <error>%trackExecution maybe</error>",
                "$name:6:1: warning: `%trackClasspath on off`: expected on or off; tracking is unchanged\n" +
                    "  | <error>%trackClasspath on off</error>",
                "$name:7:1: warning: `%dumpClassesForSpark yes`: expected on or off; unchanged\n" +
                    "  | <error>%dumpClassesForSpark yes // for Spark</error>",
            ),
            value.warnings,
        )
    }

    @Test
    fun `a cell of only magics runs and gives no value`() {
        val value = run("%trackExecution off\n%trackClasspath off\n").assertValue()
        assertEquals(Unit, value.value)
        assertEquals(emptyList(), value.warnings)
    }

    @Test
    fun `the REPL commands, each a cell of its own, give their texts`() {
        run("val commandsSee = listOf(1, 2)").assertValue()
        assertEquals(run("vars()").assertValue().value.toString(), run(":vars").assertValue().value.toString())
        val entries = System.getProperty("java.class.path").split(File.pathSeparator).filter { it.isNotEmpty() }
        assertEquals(
            "Current classpath (${entries.size} paths):\n" + entries.joinToString("\n"),
            run("\n  :classpath  \n").assertValue().value,
        )
        assertEquals(help(), run(":help").assertValue().value)
        assertMagic(
            ":helpme",
            """
            snippetN.kts:1:1: error: `:helpme` is not a REPL command of this kernel, and no Kotlin statement starts with `:`
              | <error>:helpme</error>
            hint: a cell of its own `:help` lists the commands and magics
            """.trimIndent(),
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

    private fun help(): String = """
        Kotlin ${KotlinVersion.CURRENT} on Java ${Runtime.version()} (kotlin-llm kernel)

        Commands (a cell of its own):
            :help - this text
            :classpath - the session's classpath, one entry per line
            :vars - the session's declarations with their types and values, as vars() lists them

        Magics (a line of their own, at a cell's top level):
            %use - loads libraries by name, with their default imports: %use dataframe, lets-plot(4.5.0)
                Libraries: ${UseMagic.names.joinToString(", ")}
            %trackExecution - shows the code of each later cell before it runs ("Executing:")
                Usage: %trackExecution [all/generated/off]
            %trackClasspath - lists the jars each later cell adds to the classpath
                Usage: %trackClasspath [on/off]
            %dumpClassesForSpark - writes the later cells' classes to the directory of the system property spark.repl.class.outputDir
                Usage: %dumpClassesForSpark [on/off]
            %output, %logLevel, %logHandler, %useLatestDescriptors - accepted with a notice: nothing to set here

        @file:DependsOn("group:artifact:version") adds a library by its Maven coordinates; DISPLAY, HTML and Image show rich output.
    """.trimIndent()
}
