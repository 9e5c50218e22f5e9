package org.kotlinllm.script.internal.compiler

import java.util.concurrent.CountDownLatch
import kotlin.coroutines.Continuation
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.startCoroutine

/**
 * Runs [block] on the calling thread and returns its result, without an event loop: the compiler's and the
 * evaluator's suspend functions do not suspend, so the snippet runs with no coroutine machinery on its stack.
 */
internal fun <T> callSuspending(block: suspend () -> T): T {
    var outcome: Result<T>? = null
    val done = CountDownLatch(1)
    block.startCoroutine(
        Continuation(EmptyCoroutineContext) {
            outcome = it
            done.countDown()
        },
    )
    while (true) {
        try {
            done.await()
            break
        } catch (_: InterruptedException) {
            // an interrupt meant for the snippet arrived after it finished: keep waiting, the flag is cleared later
        }
    }
    return checkNotNull(outcome) { "a finished call has an outcome" }.getOrThrow()
}
