package org.kotlinllm.script.runtime

import org.kotlinllm.script.ScriptScope
import java.util.concurrent.CopyOnWriteArraySet

/** Which [ScriptScope] the scope functions of a snippet act on: the one of the session running the calling code. */
internal object SessionScopes {

    /** The scope of the session whose code runs on this thread: set on the session's thread and in its coroutines. */
    val current: ThreadLocal<ScriptScope?> = ThreadLocal()

    private val live = CopyOnWriteArraySet<ScriptScope>()

    fun opened(scope: ScriptScope) {
        live += scope
    }

    fun closed(scope: ScriptScope) {
        live -= scope
    }

    /** The scope of the session running the calling code; on other threads (e.g. a snippet's own) the only live one. */
    fun ofCaller(): ScriptScope = current.get() ?: live.singleOrNull()
        ?: throw IllegalStateException(
            "await, launch and async need the ScriptScope of a session: call them from a snippet, its coroutines, " +
                "or pass them scriptScope",
        )
}
