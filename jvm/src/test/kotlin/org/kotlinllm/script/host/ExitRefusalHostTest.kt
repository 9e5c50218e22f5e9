package org.kotlinllm.script.host

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.ScriptResult
import kotlin.test.assertEquals
import kotlin.test.assertIs

/** A launched coroutine calling `System.exit` fails, located, like any coroutine whose exception nobody catches. */
@Timeout(120)
class ExitRefusalHostTest {

    @Test
    fun `an exit in a launched coroutine is refused and reported on the session's stderr`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            events.settled(session.submit("val keep = 42").snippetNumber)
            val launching = session.submit("val quitting = launch { System.exit(3) }\nawait { quitting.join() }")
            events.settled(launching.snippetNumber)
            events.printed(OutputEvent.STDERR, "  | val quitting = launch { System.exit(3) }\n")
            assertEquals(
                "Exception in a launched coroutine: org.kotlinllm.script.runtime.ExitRefusedException: " +
                    "System.exit(3) was refused: a snippet cannot end the kernel; to end the session, restart the kernel\n" +
                    "  at <snippet body>(snippet2.kts:1)\n" +
                    "  | val quitting = launch { System.exit(3) }\n",
                events.text(OutputEvent.STDERR),
            )
            val kept = events.settled(session.submit("keep").snippetNumber)
            assertEquals(42, assertIs<ScriptResult.Value>(kept.result).value)
        }
    }
}
