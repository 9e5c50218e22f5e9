package org.kotlinllm.script.host

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.util.concurrent.CountDownLatch
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** A snippet's run time, as a host limiting it reads it: from its start on the session's thread, without input waits. */
@Timeout(180)
class RunTimeTest {

    @Test
    fun `a snippet waiting behind another has not run, and a settled one keeps its run time`() {
        val gate = CountDownLatch(1)
        HostSession.create(mapOf("gate" to gate), defaultSettings()).use { session ->
            val events = EventReader(session)
            val first = session.submit("println(\"waiting\")\ngate.await()\nThread.sleep(300)")
            val second = session.submit("1")
            events.printed(OutputEvent.STDOUT, "waiting")
            assertEquals(0, second.runMillis, "queued behind the first: not started")
            gate.countDown()
            events.settled(second.snippetNumber)
            val ran = first.runMillis
            assertTrue(ran >= 300, "it slept 300 ms: $ran")
            Thread.sleep(50) // time passes after its end
            assertEquals(ran, first.runMillis, "settled: its run time stays")
        }
    }

    @Test
    fun `the time a read waits for its answer is not counted`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            val execution = session.submit("val line = readLine()\nThread.sleep(200)\nline", 1, allowStdin = true)
            val request = events.inputRequest()
            val before = execution.runMillis
            Thread.sleep(WAIT_MILLIS) // the read waits meanwhile
            assertEquals(before, execution.runMillis, "the clock stands still while the read waits")
            session.answerInput(request.requestId, "typed")
            assertEquals("typed", events.settled(1).valueText)
            val ran = execution.runMillis
            assertTrue(ran in (before + 200) until (before + WAIT_MILLIS), "200 ms of sleep after the read, none of the wait: $ran")
        }
    }

    private companion object {
        /** Longer than the snippet's 200 ms sleep and what it does around it, also on a loaded machine. */
        const val WAIT_MILLIS = 1500L
    }
}
