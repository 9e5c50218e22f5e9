package org.kotlinllm.script.jupyterapi

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.TestInstance
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.host.DisplayEvent
import org.kotlinllm.script.host.EventReader
import org.kotlinllm.script.host.HostOutcome
import org.kotlinllm.script.host.HostSession
import org.kotlinllm.script.host.OutputEvent
import org.kotlinllm.script.host.defaultSettings

/**
 * A test class whose cells run in order in one host session (default settings), closed after its tests: [run] a
 * cell, [value] one that must give a value, and what a snippet printed ([output]) or displayed ([displays]).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class OneSessionTest {
    protected val session: HostSession = HostSession.create(emptyMap(), defaultSettings())
    internal val events = EventReader(session)

    @AfterAll
    fun close() = session.close()

    protected fun run(code: String): HostOutcome = events.settled(session.submit(code.trimIndent()).snippetNumber)

    protected fun value(code: String): HostOutcome = run(code).also { it.result.assertValue() }

    /** What snippet [number] printed on [stream] (`stdout`, `stderr`). */
    protected fun output(number: Int, stream: String): String = events.events.filterIsInstance<OutputEvent>()
        .filter { it.snippetNumber == number && it.stream == stream }
        .joinToString("") { it.text }

    protected fun displays(number: Int): List<DisplayEvent> =
        events.events.filterIsInstance<DisplayEvent>().filter { it.snippetNumber == number }
}
