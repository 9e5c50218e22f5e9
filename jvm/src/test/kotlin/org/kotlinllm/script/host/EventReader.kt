package org.kotlinllm.script.host

import kotlin.test.fail

/** Reads the events of a [HostSession] from the test's thread, keeping every event read, in order. */
internal class EventReader(private val session: HostSession) {

    /** Every event read so far (as [HostSession.nextEvents] returned them: a merge never spans two calls). */
    val events: MutableList<HostEvent> = mutableListOf()

    /** Reads until [done] holds for the events read so far; fails after [timeoutMillis], which only guards hangs. */
    fun readUntil(what: String, timeoutMillis: Long = 120_000, done: (List<HostEvent>) -> Boolean) {
        val deadline = System.nanoTime() + timeoutMillis * 1_000_000
        while (!done(events)) {
            val left = (deadline - System.nanoTime()) / 1_000_000
            if (left <= 0) fail("no $what within $timeoutMillis ms; read: $events")
            events += session.nextEvents(left)
        }
    }

    /** Reads until snippet [number] settled; its outcome. */
    fun settled(number: Int): HostOutcome {
        readUntil("SettledEvent of snippet $number") { events -> events.any { it is SettledEvent && it.snippetNumber == number } }
        return events.filterIsInstance<SettledEvent>().first { it.snippetNumber == number }.outcome
    }

    /** Reads until [text] was printed on [stream]. */
    fun printed(stream: String, text: String) {
        readUntil("'$text' on $stream") { text in text(stream) }
    }

    /** Reads until the [count]th input request (1-based); that request. */
    fun inputRequest(count: Int = 1): InputRequestEvent {
        readUntil("input request $count") { events -> events.filterIsInstance<InputRequestEvent>().size >= count }
        return events.filterIsInstance<InputRequestEvent>()[count - 1]
    }

    /** What was printed on [stream] so far, by any snippet. */
    fun text(stream: String): String = events.filterIsInstance<OutputEvent>().filter { it.stream == stream }.joinToString("") { it.text }

    /** The events read so far as (snippet, kind) with adjacent output of one snippet and stream merged, like `1 stdout: a\n`. */
    fun timeline(): List<String> {
        val lines = mutableListOf<String>()
        var last: OutputEvent? = null
        for (event in events) {
            if (event is OutputEvent && last != null && last.snippetNumber == event.snippetNumber && last.stream == event.stream) {
                lines[lines.size - 1] = lines.last() + event.text
            } else {
                lines += when (event) {
                    is OutputEvent -> "${event.snippetNumber} ${event.stream}: ${event.text}"
                    is SettledEvent -> "${event.snippetNumber} settled"
                    is DisplayEvent ->
                        "${event.snippetNumber} ${if (event.update) "update" else "display"} ${event.data.keys}" +
                            (event.displayId?.let { " id=$it" } ?: "")
                    is ClearOutputEvent -> "${event.snippetNumber} clear wait=${event.wait}"
                    is InputRequestEvent ->
                        "${event.snippetNumber} input request \"${event.prompt}\"" + if (event.password) " (password)" else ""
                    is ProcessExitEvent -> "${event.snippetNumber} process exit ${event.call}(${event.status})"
                }
            }
            last = event as? OutputEvent
        }
        return lines
    }
}

/** The settings of a host session with the engine's defaults. */
internal fun defaultSettings(): HostSettings = HostSettings()
