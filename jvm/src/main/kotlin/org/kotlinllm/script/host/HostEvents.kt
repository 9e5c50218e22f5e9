package org.kotlinllm.script.host

import org.kotlinllm.script.internal.core.SessionHost
import org.kotlinllm.script.internal.pipeline.SnippetRun
import org.kotlinllm.script.internal.routing.DisplayTarget
import org.kotlinllm.script.internal.routing.InputHost
import org.kotlinllm.script.internal.routing.RunClock
import org.kotlinllm.script.internal.routing.SessionInput
import org.kotlinllm.script.internal.session.ProcessExit
import org.kotlinllm.script.runtime.MimeBundle
import java.util.concurrent.CountDownLatch
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/**
 * The events of one session, in the order they happened: the engine is the only writer (the session's thread, and
 * any thread printing for the session), [HostSession.nextEvents] the only reader.
 */
internal class HostEvents(
    /** Bytes of rich data one display may carry; past it, only its text is kept, with a notice. */
    private val maxDisplayBytes: Long = DisplayLimit.DEFAULT_MAX_BYTES,
    /** The session's clock, which the waits for input are left out of. */
    clock: RunClock = RunClock(),
) : SessionHost,
    DisplayTarget,
    InputHost {

    private val queue = LinkedBlockingQueue<Any>()

    /** The snippet that output is tagged with: the one running, else the last that ran. */
    @Volatile
    private var snippetNumber = 0

    @Volatile
    private var closed = false

    // stdin: reads of System.in by the session's code become InputRequestEvents
    override val input: SessionInput = SessionInput(clock) { number, requestId, prompt, password ->
        add(InputRequestEvent(number, requestId, prompt, password))
    }

    override fun write(stream: String, text: String) {
        if (text.isNotEmpty()) add(OutputEvent(snippetNumber, stream, text))
    }

    override fun snippetStarts(number: Int) {
        snippetNumber = number
        input.snippetStarts(number)
    }

    override fun snippetSettled(number: Int, run: SnippetRun?, cancelled: Boolean) {
        input.snippetSettled(number)
        add(SettledEvent(number, HostOutcome.of(number, run, cancelled, maxDisplayBytes)))
    }

    // --- the process ending: see ProcessExitEvent ---

    /** How long an exit waits for [exitReported]; 0: it is not reported. */
    @Volatile
    var exitTimeoutMillis = 0L

    private val exitReport = CountDownLatch(1)

    fun exitReported() = exitReport.countDown()

    override fun processExits(
        exit: ProcessExit,
        snippetNumber: Int?,
        libraryFrames: List<StackTraceElement>,
        snippetFrames: String,
    ): Boolean {
        val timeout = exitTimeoutMillis
        if (timeout <= 0 || closed) return false
        val frames = libraryFrames.take(MAX_LIBRARY_FRAMES).map(::frameText)
        add(ProcessExitEvent(snippetNumber ?: 0, snippetNumber != null, exit.call, exit.status, frames, snippetFrames))
        exitReport.await(timeout, TimeUnit.MILLISECONDS)
        return true
    }

    /** `com.example.Tool.quit(Tool.java:12)`: without the module and class loader names the JDK adds. */
    private fun frameText(frame: StackTraceElement): String {
        val place = when {
            frame.isNativeMethod -> "Native Method"
            frame.fileName == null -> "Unknown Source"
            frame.lineNumber >= 0 -> "${frame.fileName}:${frame.lineNumber}"
            else -> frame.fileName
        }
        return "${frame.className}.${frame.methodName}($place)"
    }

    // --- rich output ---

    override fun display(bundle: MimeBundle, displayId: String?, update: Boolean) {
        val shown = DisplayLimit.bound(bundle, maxDisplayBytes)
        add(DisplayEvent(snippetNumber, JsonText.dataOf(shown), shown.jsonMetadata(), displayId, update))
    }

    override fun clearOutput(wait: Boolean) {
        add(ClearOutputEvent(snippetNumber, wait))
    }

    private fun add(event: HostEvent) {
        if (!closed) queue.put(event)
    }

    /** Waits up to [timeoutMillis] for an event, then takes all there are, adjacent output of one stream merged. */
    fun next(timeoutMillis: Long): List<HostEvent> {
        if (closed) return emptyList()
        val first = queue.poll(timeoutMillis, TimeUnit.MILLISECONDS) ?: return emptyList()
        val taken = mutableListOf(first)
        queue.drainTo(taken)
        if (CLOSED in taken) {
            queue.put(CLOSED) // for any other thread waiting
            return emptyList()
        }
        return merge(taken.map { it as HostEvent })
    }

    /** Ends every wait in [next], now and later. */
    fun close() {
        input.close()
        closed = true
        queue.put(CLOSED)
    }

    private fun merge(events: List<HostEvent>): List<HostEvent> {
        val merged = ArrayList<HostEvent>(events.size)
        var pending: OutputEvent? = null
        val text = StringBuilder()
        for (event in events) {
            if (pending != null && event is OutputEvent && event.stream == pending.stream && event.snippetNumber == pending.snippetNumber) {
                text.append(event.text)
                continue
            }
            if (pending != null) merged += OutputEvent(pending.snippetNumber, pending.stream, text.toString())
            pending = null
            if (event is OutputEvent) {
                pending = event
                text.setLength(0)
                text.append(event.text)
            } else {
                merged += event
            }
        }
        if (pending != null) merged += OutputEvent(pending.snippetNumber, pending.stream, text.toString())
        return merged
    }

    private companion object {
        val CLOSED = Any()
        const val MAX_LIBRARY_FRAMES = 8
    }
}
