package org.kotlinllm.script.runtime

import kotlinx.coroutines.CoroutineScope

/**
 * The scope receiving the snippets of a session: a [CoroutineScope] living as long as the session.
 *
 * `launch { … }` starts a coroutine that keeps running after the snippet, until it completes or the session is
 * closed; [await] runs suspending code on the session's thread, blocking the snippet until it completes. Snippets
 * reach it through `await`, `launch`, `async`, `coroutineContext` and `scriptScope`, imported by default, rather
 * than as an implicit receiver, so functions declared in snippets can use them too (the K2 REPL compiler cannot
 * compile a snippet function referring to an implicit receiver).
 */
public abstract class ScriptScope : CoroutineScope {

    /**
     * Runs the suspending [block] on the session's thread and returns its value, like
     * `val pages = await { urls.map { async { fetch(it) } }.awaitAll() }`. Cancelling the caller of
     * [org.kotlinllm.script.ScriptSession.execute] cancels it.
     */
    public abstract fun <T> await(block: suspend CoroutineScope.() -> T): T
}
