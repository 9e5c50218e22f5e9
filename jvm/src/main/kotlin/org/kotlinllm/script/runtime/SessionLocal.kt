package org.kotlinllm.script.runtime

import java.util.concurrent.CopyOnWriteArraySet

/**
 * A per-session thing that the runtime functions find for the code calling them: the one set on this thread (the
 * session's thread and its coroutines carry it), else, on other threads (e.g. ones a snippet started), the only one
 * of an open session.
 */
internal open class SessionLocal<T : Any> {

    /** Set on the session's thread and in its coroutines. */
    val current: ThreadLocal<T?> = ThreadLocal()

    private val live = CopyOnWriteArraySet<T>()

    fun opened(item: T) {
        live += item
    }

    fun closed(item: T) {
        live -= item
    }

    /** This thread's, else the only open one; null when there is none, or several and none is this thread's. */
    fun ofCallerOrNull(): T? = current.get() ?: live.singleOrNull()
}
