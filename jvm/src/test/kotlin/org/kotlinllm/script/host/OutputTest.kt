package org.kotlinllm.script.host

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.util.concurrent.CountDownLatch
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** What snippets print reaches their own session's events, while they run. */
@Timeout(120)
class OutputTest {

    @Test
    fun `stdout and stderr of the snippet, its await and launch coroutines are captured per session`() {
        HostSession.create(emptyMap(), defaultSettings()).use { first ->
            HostSession.create(emptyMap(), defaultSettings()).use { second ->
                val firstEvents = EventReader(first)
                val secondEvents = EventReader(second)
                first.submit("println(\"first out\")\nSystem.err.println(\"first err\")")
                second.submit("println(\"second out\")")
                first.submit(
                    "await { launch { println(\"from await\") }.join() }\nval launched = launch { println(\"from launch\") }\nawait { launched.join() }",
                )
                val last = first.submit("print(\"no newline é😀\")")
                firstEvents.settled(last.snippetNumber)
                secondEvents.settled(1)
                assertEquals(
                    "first out\nfrom await\nfrom launch\nno newline é😀",
                    firstEvents.text(OutputEvent.STDOUT),
                )
                assertEquals("first err\n", firstEvents.text(OutputEvent.STDERR))
                assertEquals("second out\n", secondEvents.text(OutputEvent.STDOUT))
            }
        }
    }

    @Test
    fun `output arrives while the snippet runs`() {
        val gate = CountDownLatch(1)
        HostSession.create(mapOf("gate" to gate), defaultSettings()).use { session ->
            val events = EventReader(session)
            val execution = session.submit("println(\"tick 1\")\ngate.await()\nprintln(\"tick 2\")")
            events.printed(OutputEvent.STDOUT, "tick 1\n")
            assertTrue(events.events.none { it is SettledEvent }, "the first line came while the snippet waits")
            gate.countDown()
            events.settled(execution.snippetNumber)
            assertEquals("tick 1\ntick 2\n", events.text(OutputEvent.STDOUT))
        }
    }

    @Test
    fun `a hundred thousand lines all arrive, in order`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            events.settled(session.submit("for (i in 1..100_000) println(i)").snippetNumber)
            val lines = events.text(OutputEvent.STDOUT).lines()
            assertEquals(100_001, lines.size)
            val firstWrong = lines.dropLast(1).withIndex().firstOrNull { (i, line) -> line != (i + 1).toString() }
            assertEquals(null, firstWrong, "every line in order")
        }
    }

    @Test
    fun `an uncaught exception of a launched coroutine is reported on the session's stderr, rendered`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            val execution = session.submit(
                "class LaunchFailure(m: String) : Exception(m)\nval failed = launch { throw LaunchFailure(\"lost\") }\nawait { failed.join() }",
            )
            events.settled(execution.snippetNumber)
            events.printed(OutputEvent.STDERR, "lost\n")
            assertEquals(
                "Exception in a launched coroutine: LaunchFailure: lost\n" +
                    "  at <snippet body>(snippet1.kts:2)\n" +
                    "  | val failed = launch { throw LaunchFailure(\"lost\") }\n",
                events.text(OutputEvent.STDERR),
            )
        }
    }
}
