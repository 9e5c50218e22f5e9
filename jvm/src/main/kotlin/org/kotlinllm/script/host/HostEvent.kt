package org.kotlinllm.script.host

import org.kotlinllm.script.internal.OutputTarget

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
    override fun toString(): String = "SettledEvent($snippetNumber, $outcome)"
}
