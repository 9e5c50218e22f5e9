package org.kotlinllm.script.host

import org.kotlinllm.script.runtime.OutputTarget

/** What [HostSession.nextEvents] returns, in the order it happened; [snippetNumber] is the snippet it belongs to. */
public sealed class HostEvent {
    public abstract val snippetNumber: Int
}

/**
 * Text printed to `System.out` or `System.err` by the session's code: its snippets, their `await` and `launch`
 * coroutines, and threads they start. [snippetNumber] is the snippet being compiled or evaluated when it was
 * printed; when none is, the last snippet that ran (0 before the first).
 *
 * @property stream [STDOUT] or [STDERR].
 */
public class OutputEvent(
    override val snippetNumber: Int,
    public val stream: String,
    public val text: String,
) : HostEvent() {
    override fun toString(): String = "OutputEvent($snippetNumber, $stream, ${text.length} chars)"

    public companion object {
        public const val STDOUT: String = OutputTarget.STDOUT
        public const val STDERR: String = OutputTarget.STDERR
    }
}

/**
 * Exactly one per submitted snippet, also when it was cancelled before it started or the engine failed; it comes
 * after every [OutputEvent] that the session's thread printed before the snippet finished.
 */
public class SettledEvent(
    override val snippetNumber: Int,
    public val outcome: HostOutcome,
) : HostEvent() {
    /** Whether its execution was cancelled before it settled ([HostOutcome.cancelled]). */
    public val cancelled: Boolean get() = outcome.cancelled

    override fun toString(): String = "SettledEvent($snippetNumber, $outcome)"
}

// --- rich output: displays and clearing (DisplayEvent, ClearOutputEvent) ---

/**
 * A rich output of a snippet: `display_data` ([update] false) or `update_display_data` ([update] true), sent by
 * `DISPLAY`, `UPDATE_DISPLAY` or `notebook.display`; in order with the [OutputEvent]s (what was printed before it
 * comes before it), and tagged with a snippet as they are.
 *
 * @property data MIME type → content: a [JsonText] for JSON MIME types (`application/json`, `application/…+json`),
 *   which Jupyter sends parsed; text for the others, binary images as base64; `text/plain` always present.
 * @property metadata the output's metadata as JSON values (empty when none), e.g. `{"image/png": {"width": 120,
 *   "height": 80}}`.
 * @property displayId the id that a later update replaces it by; null when none was given.
 */
public class DisplayEvent(
    override val snippetNumber: Int,
    public val data: Map<String, Any>,
    public val metadata: Map<String, Any?>,
    public val displayId: String?,
    public val update: Boolean,
) : HostEvent() {
    override fun toString(): String = "DisplayEvent($snippetNumber, ${data.keys}, id=$displayId, update=$update)"
}

/** The snippet cleared its cell's output (`clear_output`); with [wait], the client clears once new output comes. */
public class ClearOutputEvent(
    override val snippetNumber: Int,
    public val wait: Boolean,
) : HostEvent() {
    override fun toString(): String = "ClearOutputEvent($snippetNumber, wait=$wait)"
}

/**
 * Code that the engine does not rewrite (a library, the JDK) called `System.exit` or `Runtime.exit`: the process is
 * ending. Queued, from the JVM's shutdown hook, only for a host that asked with [HostSession.reportExits]; the exit
 * waits for [HostSession.exitReported] (or that call's time limit), so that the host can tell its client first.
 * `Runtime.halt` by such code runs no hook and cannot be reported.
 *
 * @property snippetNumber the snippet running; 0 when none ran ([running] false).
 * @property call `System.exit` or `Runtime.exit`.
 * @property status the exit status; null when the JDK does not tell it (before JDK 21).
 * @property libraryFrames the caller's frames, innermost first, up to the first frame of a snippet, as
 *   `com.example.Tool.quit(Tool.java:12)`.
 * @property snippetFrames the snippets' frames below them, as an error's report shows them (`  at <snippet
 *   body>(snippet3.kts:1)`, then `  | ` and the source line); empty when there are none.
 */
public class ProcessExitEvent(
    override val snippetNumber: Int,
    public val running: Boolean,
    public val call: String,
    public val status: Int?,
    public val libraryFrames: List<String>,
    public val snippetFrames: String,
) : HostEvent() {
    override fun toString(): String = "ProcessExitEvent($snippetNumber, $call, status=$status)"
}
