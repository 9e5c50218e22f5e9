@file:JvmName("ScopeFunctions")

package org.kotlinllm.script.runtime

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.Job
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext
import kotlinx.coroutines.async as asyncIn
import kotlinx.coroutines.launch as launchIn

/*
 * The ScriptScope of the running session, for the snippets, which import these functions by default.
 *
 * The K2 REPL compiler cannot compile a snippet function that refers to an implicit receiver of the script (its
 * backend fails with "No mapping for symbol: SCRIPT_IMPLICIT_RECEIVER"), so a `fun fetch() = await { … }` would
 * never compile if the ScriptScope were the snippets' implicit receiver. These functions reach it instead.
 *
 * No public KT issue found for that backend failure.
 */

/** The [ScriptScope] of the session whose code calls this. */
public val scriptScope: ScriptScope get() = scopeOfCaller()

/** Runs the suspending [block] on the session's thread, blocking until it completes: see [ScriptScope.await]. */
public fun <T> await(block: suspend CoroutineScope.() -> T): T = scopeOfCaller().await(block)

/**
 * Runs a top-level statement of a snippet that calls suspend functions, as [await] does: the engine compiles such a
 * statement inside a call of this (see SuspendingStatements). Its block has no receiver, so the statement's names
 * resolve as the user wrote them (a `launch` in it is still the session's). Public only because compiled snippets
 * call it.
 */
public fun <T> runSuspending(block: suspend () -> T): T = try {
    scopeOfCaller().await { block() }
} catch (e: Exception) {
    // cancelled by an interrupt (which cancels the job and interrupts the thread, whichever it sees first): reported
    // as a cancelled loop is, located at the user's statement
    if (e is CancellationException || e is InterruptedException) Interruption.check()
    throw e
}

/** Starts a coroutine that keeps running after the snippet, until it completes or the session is closed. */
public fun launch(
    context: CoroutineContext = EmptyCoroutineContext,
    start: CoroutineStart = CoroutineStart.DEFAULT,
    block: suspend CoroutineScope.() -> Unit,
): Job = scopeOfCaller().launchIn(context, start, block)

/** Starts a coroutine computing a value in the session's scope, like `launch`. */
public fun <T> async(
    context: CoroutineContext = EmptyCoroutineContext,
    start: CoroutineStart = CoroutineStart.DEFAULT,
    block: suspend CoroutineScope.() -> T,
): Deferred<T> = scopeOfCaller().asyncIn(context, start, block)

/** The coroutine context of the session's scope. */
public val coroutineContext: CoroutineContext get() = scopeOfCaller().coroutineContext

/** The scope of the session running the calling code: its snippets, the threads they start, its coroutines. */
private fun scopeOfCaller(): ScriptScope = SessionContext.currentOrOnly()?.scope
    ?: throw IllegalStateException(
        "await, launch and async need the ScriptScope of a session: call them from a snippet, its coroutines, " +
            "or pass them scriptScope",
    )
