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
    fun `a value class property of an earlier snippet gets a hint to name its getter`() {
        run("import kotlin.time.Duration.Companion.seconds\nval timeoutV = 5.seconds").assertValue()
        assertEquals(
            "java.lang.NoSuchMethodError: 'long getTimeoutV-UwyO8pc()'\n" +
                "  at <snippet body>(snippetN.kts:1)\n" +
                "  | timeoutV\n" +
                "hint: a known bug of the K2 REPL compiler: 'timeoutV' has a value class type (like Duration or UInt) " +
                "and was declared in an earlier snippet; declare it again with @JvmName, e.g. " +
                "@get:JvmName(\"timeoutV\") val timeoutV = …, or use it within the snippet declaring it",
            message("timeoutV", ExecutionPhase.EVALUATION),
        )
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
