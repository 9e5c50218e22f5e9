package org.kotlinllm.script.host

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.ExecutionPhase
import org.kotlinllm.script.assertError
import org.kotlinllm.script.assertValue
import java.util.concurrent.CountDownLatch
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/** Reads of `System.in` by a snippet: answered by the host when it allowed stdin, a located error at once otherwise. */
@Timeout(180)
class InputTest {

    private val notAllowed = "org.kotlinllm.script.runtime.StdinNotAllowedException"

    /** Runs [code] as snippet [number] with stdin allowed, answering its requests with [answers] in order. */
    private fun EventReader.answered(session: HostSession, number: Int, code: String, vararg answers: String?): HostOutcome {
        session.submit(code, number, allowStdin = true)
        val before = events.filterIsInstance<InputRequestEvent>().size
        for ((index, answer) in answers.withIndex()) {
            val request = inputRequest(before + index + 1)
            assertEquals(number, request.snippetNumber)
            session.answerInput(request.requestId, answer)
        }
        return settled(number)
    }

    @Test
    fun `readLine, readln, a Scanner and a BufferedReader get the answered lines, one request per line`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            val line = events.answered(session, 1, "print(\"Name: \")\nval name = readLine()\n\"Hello \$name\"", "Ada")
            assertEquals("Hello Ada", line.valueText)
            assertEquals(listOf("1 stdout: Name: ", "1 input request \"\"", "1 settled"), events.timeline())

            assertEquals("[é😀, 42]", events.answered(session, 2, "listOf(readln(), readln().toInt())", "é😀", "42").valueText)
            val scanner = events.answered(
                session,
                3,
                "val scanner = java.util.Scanner(System.`in`)\nval n = scanner.nextInt()\nscanner.nextLine()\nn to scanner.nextLine()",
                "7",
                "a line",
            )
            assertEquals("(7, a line)", scanner.valueText)
            // a Scanner of an earlier snippet keeps reading the routed System.in
            assertEquals("after", events.answered(session, 4, "scanner.nextLine()", "after").valueText)
            val reader = events.answered(
                session,
                5,
                "val reader = java.io.BufferedReader(java.io.InputStreamReader(System.`in`))\nreader.readLine() + reader.readLine()",
                "one",
                "two",
            )
            assertEquals("onetwo", reader.valueText)
            assertEquals(8, events.events.filterIsInstance<InputRequestEvent>().size)
            assertTrue(events.events.filterIsInstance<InputRequestEvent>().all { it.prompt == "" && !it.password })
        }
    }

    @Test
    fun `readPassword asks with its prompt and the password flag, and the end of input is null or an error`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            assertEquals("secret".length.toString(), events.answered(session, 1, "readPassword(\"Token: \").length", "secret").valueText)
            val request = events.inputRequest()
            assertEquals("Token: ", request.prompt)
            assertTrue(request.password)
            events.answered(session, 2, "readPassword()", "x")
            assertEquals("Password: ", events.inputRequest(2).prompt)

            assertEquals("null", events.answered(session, 3, "readLine()", null).valueText)
            val eof = events.answered(session, 4, "readln()", null)
            assertEquals("kotlin.io.ReadAfterEOFException", eof.ename)
            assertEquals("java.io.EOFException", events.answered(session, 5, "readPassword()", null).ename)
        }
    }

    @Test
    fun `a read fails at once with a located error when stdin is not allowed, also in a Scanner`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            session.submit("val x = 1\nval name = readLine()")
            session.submit("java.util.Scanner(System.`in`).nextLine()", 2)
            session.submit("println(\"before\")\nreadPassword()", 3, allowStdin = false)
            for (number in 1..3) {
                val outcome = events.settled(number)
                assertEquals(notAllowed, outcome.ename, outcome.toString())
                assertTrue(
                    outcome.evalue.orEmpty().startsWith("this cell cannot read input: the client did not allow stdin"),
                    outcome.evalue,
                )
                assertFalse(outcome.cancelled)
            }
            val report = events.settled(1).result.assertError(ExecutionPhase.EVALUATION).message
            assertTrue(report.startsWith("$notAllowed: this cell cannot read input"), report)
            assertTrue("\n  at <snippet body>(snippet1.kts:2)\n  | val name = readLine()" in report, report)
            assertTrue("snippet2.kts:1" in events.settled(2).result.assertError(ExecutionPhase.EVALUATION).message)
            assertTrue(events.events.none { it is InputRequestEvent })
            // the session goes on: what the failed snippet declared before the read is kept, as for any exception
            session.submit("x + 1", 4)
            assertEquals("2", events.settled(4).valueText)
        }
    }

    @Test
    fun `cancelling a snippet waiting for input cancels it, a late answer is ignored, and the session goes on`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            session.submit("val kept = 41", 1)
            events.settled(1)
            val waiting = session.submit("val lost = readLine()", 2, allowStdin = true)
            val request = events.inputRequest()
            waiting.cancel()
            val cancelled = events.settled(2)
            assertTrue(cancelled.cancelled)
            assertEquals("java.lang.InterruptedException", cancelled.ename)
            session.answerInput(request.requestId, "too late")
            assertEquals("fresh 42", events.answered(session, 3, "readLine() + \" \" + (kept + 1)", "fresh").valueText)
            assertEquals(2, events.events.filterIsInstance<InputRequestEvent>().size)
        }
    }

    @Test
    fun `threads and coroutines of the snippet read its input, and fail once the snippet ended`() {
        val gates = mapOf("gate1" to CountDownLatch(1), "gate2" to CountDownLatch(1))
        HostSession.create(gates, defaultSettings()).use { session ->
            val events = EventReader(session)
            val threaded = events.answered(
                session,
                1,
                "var got: String? = null\nval t = Thread { got = readLine() }\nt.start()\nt.join()\ngot + \" \" + await { readln() }",
                "from a thread",
                "from await",
            )
            assertEquals("from a thread from await", threaded.valueText)

            session.submit("val late = launch(Dispatchers.IO) { gate1.await(); readLine() }\nUnit", 2, allowStdin = true)
            events.settled(2)
            gates.getValue("gate1").countDown()
            events.printed(OutputEvent.STDERR, "no cell is running")
            assertTrue("Exception in a launched coroutine: $notAllowed: this code cannot read input" in events.text(OutputEvent.STDERR))

            // a thread still waiting when its snippet ends fails, so nothing is left pending
            session.submit(
                "val waiter = Thread { try { readLine() } catch (e: Exception) { println(e.message) } }\nwaiter.start()\ngate2.await()",
                3,
                allowStdin = true,
            )
            events.inputRequest(3)
            gates.getValue("gate2").countDown()
            events.settled(3)
            events.printed(OutputEvent.STDOUT, "the cell ended while this read waited for input\n")
            events.answered(session, 4, "waiter.join()").result.assertValue()
        }
    }
}
