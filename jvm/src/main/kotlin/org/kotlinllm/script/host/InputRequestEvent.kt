package org.kotlinllm.script.host

/**
 * The code of snippet [snippetNumber] reads `System.in` (or calls `readPassword`) and the host allowed input for it
 * ([HostSession.submit] with `allowStdin`): the reading thread waits until [HostSession.answerInput] answers
 * [requestId]. It comes after the output printed before the read. [prompt] is `""` for a plain read of `System.in`
 * (what the snippet printed as its prompt came before as an [OutputEvent]); [password]: the answer is a secret.
 */
public class InputRequestEvent(
    override val snippetNumber: Int,
    public val requestId: Long,
    public val prompt: String,
    public val password: Boolean,
) : HostEvent() {
    override fun toString(): String = "InputRequestEvent($snippetNumber, #$requestId, password=$password)"
}
