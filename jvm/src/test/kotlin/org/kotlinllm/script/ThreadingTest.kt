package org.kotlinllm.script

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.util.concurrent.CancellationException
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertTrue

/** The session's thread, concurrent calls, cancellation and closing. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class ThreadingTest {

    private val session = ScriptSession { "started" provides java.util.concurrent.CountDownLatch(1) }

    @AfterAll
    fun close() = session.close()

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    @Test
    fun `all snippets run on the one thread of the session`() {
        run("val firstThread = Thread.currentThread()\nval bound = ThreadLocal.withInitial { \"bound\" }").assertValue()
        assertEquals(true, run("Thread.currentThread() === firstThread && bound.get() == \"bound\"").assertValue().value)
        assertEquals(true, run("await { Thread.currentThread() } === firstThread").assertValue().value)
    }

    @Test
    fun `snippets executed concurrently wait for their turn`() = runBlocking {
        session.execute("val order = java.util.Collections.synchronizedList(mutableListOf<Int>())").assertValue()
        val results = (1..5).map { i ->
            async(Dispatchers.Default) { session.execute("Thread.sleep(20)\norder += $i\norder.size") }
        }.awaitAll()
        val sizes = results.map { it.assertValue().value as Int }.sorted()
        assertEquals(listOf(1, 2, 3, 4, 5), sizes)
    }

    @Test
    fun `separate sessions run in parallel`() = runBlocking {
        ScriptSession().use { other ->
            other.execute("1").assertValue()
            val latchSession = session.execute(
                "val gate = java.util.concurrent.CountDownLatch(1)\ngate",
            ).assertValue().value as java.util.concurrent.CountDownLatch
            val waiting = async(Dispatchers.Default) { session.execute("gate.await(60, java.util.concurrent.TimeUnit.SECONDS)") }
            // the other session runs while this one waits
            assertEquals(2, other.execute("1 + 1").assertValue().value)
            latchSession.countDown()
            assertEquals(true, waiting.await().assertValue().value)
        }
    }

    @Test
    fun `cancelling the caller interrupts a blocking Thread sleep and the session keeps its state`() = runBlocking {
        session.execute("val keptAcrossCancel = 7").assertValue()
        val started = session.execute("started").assertValue().value as java.util.concurrent.CountDownLatch
        val execution = session.executeAsync("started.countDown()\nThread.sleep(60_000)\n\"not interrupted\"")
        assertTrue(started.await(60, TimeUnit.SECONDS))
        val before = System.nanoTime()
        assertTrue(execution.cancel(true))
        val settled = execution.settled.get(30, TimeUnit.SECONDS)
        assertTrue((System.nanoTime() - before) / 1e9 < 5, "interrupted in time")
        val error = settled!!.assertError(ExecutionPhase.EVALUATION)
        assertTrue(error.message.startsWith("java.lang.InterruptedException: sleep interrupted\n"), error.message)
        assertEquals(7, session.execute("keptAcrossCancel").assertValue().value)
    }

    @Test
    fun `cancelling interrupts a busy loop that never checks for interrupts`() = runBlocking {
        val started = session.execute("val loopStarted = java.util.concurrent.CountDownLatch(1)\nloopStarted").assertValue().value
            as java.util.concurrent.CountDownLatch
        session.execute("var spins = 0L").assertValue()
        val execution = session.executeAsync("loopStarted.countDown()\nwhile (true) { spins++ }")
        assertTrue(started.await(60, TimeUnit.SECONDS))
        Thread.sleep(100)
        execution.cancel(true)
        val error = execution.settled.get(10, TimeUnit.SECONDS)!!.assertError(ExecutionPhase.EVALUATION)
        assertEquals(
            "java.lang.InterruptedException: the snippet was cancelled while running\n" +
                "  at <snippet body>(snippet${session.lastSnippetNumber}.kts:2)\n  | while (true) { spins++ }",
            error.message,
        )
        assertTrue(session.execute("spins").assertValue().value as Long > 0)
        assertEquals(2, session.execute("var n = 0\nwhile (n < 2) { n++ }\nn").assertValue().value, "loops still run")
    }

    @Test
    fun `cancelling the caller of execute cancels await`() = runBlocking {
        session.execute("val awaitGate = java.util.concurrent.CountDownLatch(1)").assertValue()
        val gate = session.execute("awaitGate").assertValue().value as java.util.concurrent.CountDownLatch
        val job = launch(Dispatchers.Default) {
            session.execute("await { awaitGate.countDown(); delay(60_000) }")
        }
        assertTrue(gate.await(60, TimeUnit.SECONDS))
        Thread.sleep(50)
        withTimeout(10_000) { job.cancelAndJoin() }
        assertEquals(3, session.execute("1 + 2").assertValue().value)
    }

    @Test
    fun `an interrupt while idle does not break the next snippet`() = runBlocking {
        val done = session.executeAsync("1")
        assertEquals(1, (done.get(60, TimeUnit.SECONDS) as ScriptResult.Value).value)
        assertFalse(done.cancel(true))
        assertEquals("slept", session.execute("Thread.sleep(10)\n\"slept\"").assertValue().value)
    }

    @Test
    fun `a snippet cancelled while queued never runs`() = runBlocking {
        session.execute("var queuedRan = false\nval queueGate = java.util.concurrent.CountDownLatch(1)").assertValue()
        val gate = session.execute("queueGate").assertValue().value as java.util.concurrent.CountDownLatch
        val blocker = session.executeAsync("queueGate.await()")
        val queued = session.executeAsync("queuedRan = true")
        assertTrue(queued.cancel(true))
        gate.countDown()
        blocker.get(60, TimeUnit.SECONDS)
        assertEquals(null, queued.settled.get(60, TimeUnit.SECONDS))
        assertEquals(false, session.execute("queuedRan").assertValue().value)
    }

    @Test
    fun `a snippet being compiled when cancelled is compiled and evaluated`() = runBlocking {
        val gate = session.execute("val compileGate = java.util.concurrent.CountDownLatch(1)\ncompileGate").assertValue().value
            as java.util.concurrent.CountDownLatch
        session.execute("var evaluatedAfterCancel = false").assertValue()
        val blocker = session.executeAsync("compileGate.await()")
        // a large snippet: still compiling for a while after it starts
        val big = (1..150).joinToString("\n") { "fun generated$it(x: Int) = x + $it" } + "\nevaluatedAfterCancel = true"
        val execution = session.executeAsync(big)
        gate.countDown()
        blocker.get(60, TimeUnit.SECONDS)
        Thread.sleep(200)
        execution.cancel(true)
        assertTrue(execution.isCancelled)
        execution.settled.get(120, TimeUnit.SECONDS)!!.assertValue()
        assertEquals(true, session.execute("evaluatedAfterCancel").assertValue().value)
    }

    @Test
    fun `closing the session cancels launched coroutines and ends its thread`() = runBlocking {
        val closing = ScriptSession()
        closing.execute(
            "val ticks = java.util.concurrent.atomic.AtomicInteger()\nlaunch { while (true) { ticks.incrementAndGet(); delay(10) } }",
        ).assertValue()
        val ticks = closing.execute("ticks").assertValue().value as java.util.concurrent.atomic.AtomicInteger
        val sessionThread = closing.execute("Thread.currentThread()").assertValue().value as Thread
        closing.close()
        sessionThread.join(10_000)
        assertFalse(sessionThread.isAlive, "the session's thread ended")
        Thread.sleep(100)
        val after = ticks.get()
        Thread.sleep(200)
        assertEquals(after, ticks.get(), "launched coroutine cancelled")
        try {
            closing.executeAsync("1")
            throw AssertionError("a closed session takes no snippets")
        } catch (e: IllegalStateException) {
            assertEquals("the session is closed", e.message)
        }
    }

    @Test
    fun `launch uses the dispatcher given to the session`() = runBlocking {
        val executor = java.util.concurrent.Executors.newSingleThreadExecutor { Thread(it, "custom-dispatcher") }
        try {
            ScriptSession(dispatcher = executor.asCoroutineDispatcher()).use { custom ->
                val name = custom.execute(
                    "val where = java.util.concurrent.CompletableFuture<String>()\n" +
                        "launch { where.complete(Thread.currentThread().name) }\nwhere.get(30, java.util.concurrent.TimeUnit.SECONDS)",
                ).assertValue().value as String
                // with assertions on, kotlinx.coroutines appends the coroutine's name to the thread's
                assertTrue(name.startsWith("custom-dispatcher"), name)
            }
        } finally {
            executor.shutdownNow()
        }
    }

    @Test
    fun `launch runs after the snippet, on the given dispatcher`() = runBlocking {
        val result = session.execute(
            "val launched = java.util.concurrent.CompletableFuture<String>()\n" +
                "launch { delay(50); launched.complete(Thread.currentThread().name) }\n\"returned first\"",
        ).assertValue()
        assertEquals("returned first", result.value)
        val threadName = (session.execute("launched").assertValue().value as java.util.concurrent.CompletableFuture<*>)
            .get(30, TimeUnit.SECONDS) as String
        assertTrue(threadName.startsWith("DefaultDispatcher-worker"), threadName)
    }
}
