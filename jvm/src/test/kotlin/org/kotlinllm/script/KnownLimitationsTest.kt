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
}
