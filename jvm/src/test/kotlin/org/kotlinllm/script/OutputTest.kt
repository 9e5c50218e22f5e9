package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/** What snippets print reaches their own session's output, while they run. */
@Timeout(120)
class OutputTest {

    private fun drainAll(session: ScriptSession): List<OutputChunk> = buildList {
        while (true) {
            val chunks = session.output.drain(200)
            if (chunks.isEmpty()) break
            addAll(chunks)
        }
    }

    private fun text(chunks: List<OutputChunk>, stream: String): String =
        chunks.filter { it.stream == stream }.joinToString("") { it.text }

    @Test
    fun `stdout and stderr of the snippet, its await and launch coroutines and its threads are captured per session`() = runBlocking {
        val capturing = SessionConfiguration(captureOutput = true)
        ScriptSession(configuration = capturing).use { first ->
            ScriptSession(configuration = capturing).use { second ->
                first.execute("println(\"first out\")\nSystem.err.println(\"first err\")").assertValue()
                second.execute("println(\"second out\")").assertValue()
                first.execute(
                    "await { launch { println(\"from await\") }.join() }\nval launched = launch { println(\"from launch\") }\nawait { launched.join() }",
                ).assertValue()
                first.execute("print(\"no newline é😀\")").assertValue()
                val firstOutput = drainAll(first)
                assertEquals("first out\nfrom await\nfrom launch\nno newline é😀", text(firstOutput, OutputChunk.STDOUT))
                assertEquals("first err\n", text(firstOutput, OutputChunk.STDERR))
                assertEquals("second out\n", text(drainAll(second), OutputChunk.STDOUT))
            }
        }
    }

    @Test
    fun `output arrives while the snippet runs`() {
        val goOn = CountDownLatch(1)
        ScriptSession(configuration = SessionConfiguration(captureOutput = true)) { "goOn" provides goOn }.use { session ->
            val execution = session.executeAsync(
                "println(\"tick 1\")\ngoOn.await(60, java.util.concurrent.TimeUnit.SECONDS)\nprintln(\"tick 2\")",
            )
            val first = StringBuilder()
            while (!first.endsWith("\n")) first.append(text(session.output.drain(60_000), OutputChunk.STDOUT))
            assertEquals("tick 1\n", first.toString())
            assertFalse(execution.isDone, "while the snippet waits for the test")
            goOn.countDown()
            execution.get(60, TimeUnit.SECONDS).assertValue()
            assertEquals("tick 2\n", text(drainAll(session), OutputChunk.STDOUT))
        }
    }

    @Test
    fun `waitForOutput tells when output is there without taking it`() {
        val printNow = CountDownLatch(1)
        ScriptSession(configuration = SessionConfiguration(captureOutput = true)) { "printNow" provides printNow }.use { session ->
            assertFalse(session.output.waitForOutput(50), "nothing printed yet")
            session.executeAsync("launch { printNow.await(); println(\"later\") }").get(60, TimeUnit.SECONDS).assertValue()
            assertFalse(session.output.waitForOutput(0), "nothing printed while the launched coroutine waits")
            printNow.countDown()
            assertTrue(session.output.waitForOutput(60_000), "the launched coroutine printed")
            assertTrue(session.output.waitForOutput(0), "waiting leaves the output to drain")
            assertEquals("later\n", text(drainAll(session), OutputChunk.STDOUT))
            assertFalse(session.output.waitForOutput(0))
        }
    }

    @Test
    fun `a hundred thousand lines all arrive, in order`() {
        ScriptSession(configuration = SessionConfiguration(captureOutput = true)).use { session ->
            session.executeAsync("for (i in 1..100_000) println(i)").get(120, TimeUnit.SECONDS).assertValue()
            val lines = text(drainAll(session), OutputChunk.STDOUT).lines()
            assertEquals(100_001, lines.size)
            val firstWrong = lines.dropLast(1).withIndex().firstOrNull { (i, line) -> line != (i + 1).toString() }
            assertEquals(null, firstWrong, "every line in order")
        }
    }

    @Test
    fun `an uncaught exception of a launched coroutine is reported on the session's stderr`() = runBlocking {
        ScriptSession(configuration = SessionConfiguration(captureOutput = true)).use { session ->
            session.execute("class LaunchFailure(m: String) : Exception(m)\nval failed = launch { throw LaunchFailure(\"lost\") }\nawait { failed.join() }").assertValue()
            assertEquals(
                "Exception in a launched coroutine: LaunchFailure: lost\n",
                text(drainAll(session), OutputChunk.STDERR),
            )
        }
    }
}
