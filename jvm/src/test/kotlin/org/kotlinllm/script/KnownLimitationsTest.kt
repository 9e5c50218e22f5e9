package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals

/** The known bugs of the K2 REPL compiler, each reported with a hint how to avoid it. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KnownLimitationsTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    private fun message(code: String, phase: ExecutionPhase): String =
        run(code).assertError(phase).message.replace("snippet${session.lastSnippetNumber}.kts", "snippetN.kts")

    @Test
    fun `a class of an earlier snippet inside a declaration of inferred type gets a hint to declare the type`() {
        run("class Plain").assertValue()
        assertEquals(
            "snippetN.kts:1:28: error: Unresolved reference 'Plain'.\n" +
                "  | fun isPlain(x: Any) = x is <error>Plain</error>\n" +
                "hint: a known bug of the K2 REPL compiler: 'Plain' is not resolved inside 'isPlain', whose type is " +
                "inferred, when this snippet also uses 'isPlain'; declare the type: fun isPlain(x: Any): <Type> = …",
            message("fun isPlain(x: Any) = x is Plain\nisPlain(1)", ExecutionPhase.COMPILATION),
        )
        assertEquals(false, run("fun isPlain(x: Any): Boolean = x is Plain\nisPlain(1)").assertValue().value)
    }

    @Test
    fun `the same bug hits earlier vals and functions`() {
        run("val earlierVal = 5").assertValue()
        assertEquals(
            "snippetN.kts:1:17: error: Unresolved reference 'earlierVal'.\n" +
                "  | fun usesVal() = <error>earlierVal</error> + 1\n" +
                "hint: a known bug of the K2 REPL compiler: 'earlierVal' is not resolved inside 'usesVal', whose type " +
                "is inferred, when this snippet also uses 'usesVal'; declare the type: fun usesVal(): <Type> = …",
            message("fun usesVal() = earlierVal + 1\nusesVal()", ExecutionPhase.COMPILATION),
        )
        assertEquals(6, run("fun usesVal(): Int = earlierVal + 1\nusesVal()").assertValue().value)
    }

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
}
