package org.kotlinllm.script

import kotlinx.coroutines.CoroutineScope

/**
 * The receiver of every snippet: a [CoroutineScope] living as long as its session.
 *
 * `launch { … }` starts a coroutine that keeps running after the snippet, until it completes or the session is
 * closed; [await] runs suspending code on the session's thread, blocking the snippet until it completes.
 */
public abstract class ScriptScope : CoroutineScope {

    /**
     * Runs the suspending [block] on the session's thread and returns its value, like
     * `val pages = await { urls.map { async { fetch(it) } }.awaitAll() }`. Cancelling the caller of
     * [ScriptSession.execute] cancels it.
     */
    public abstract fun <T> await(block: suspend CoroutineScope.() -> T): T
}
