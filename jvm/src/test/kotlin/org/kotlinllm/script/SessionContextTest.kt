package org.kotlinllm.script

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.host.DisplayEvent
import org.kotlinllm.script.host.HostEvent
import org.kotlinllm.script.host.HostOutcome
import org.kotlinllm.script.host.HostSession
import org.kotlinllm.script.host.InputRequestEvent
import org.kotlinllm.script.host.SettledEvent
import org.kotlinllm.script.host.defaultSettings
import org.kotlinllm.script.runtime.vars
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import kotlin.concurrent.thread
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.fail

/**
 * Two sessions open at once, their snippets running at the same time: the code of each, on whatever thread it runs
 * (the session's, a thread it starts, its coroutines on any dispatcher), finds its own session for `vars()`,
 * `DISPLAY` and `System.in`, never the other; code of no session gets the errors it got before.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SessionContextTest {

    /** Both sessions' snippets meet here before each step, so that each step runs in both sessions at once. */
    private val step = CyclicBarrier(2)

    /** A pool whose thread exists before any snippet runs: it belongs to no session. */
    private val outsidePool = ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, LinkedBlockingQueue()) { Thread(it, "outside-pool") }
        .also { it.prestartAllCoreThreads() }

    private val a = Answering("A", mapOf("own" to "A", "step" to step, "outsidePool" to outsidePool))
    private val b = Answering("B", mapOf("own" to "B", "step" to step, "outsidePool" to outsidePool))

    @AfterAll
    fun close() {
        a.close()
        b.close()
        outsidePool.shutdownNow()
    }

    /** A host session answering each input request with `"<name> answer"`, its events read on a thread of their own. */
    private class Answering(name: String, properties: Map<String, Any?>) : AutoCloseable {
        val session: HostSession = HostSession.create(properties, defaultSettings())
        val events = CopyOnWriteArrayList<HostEvent>()

        @Volatile
        private var closed = false

        /** The outcome of each snippet, completed by the reader when its SettledEvent comes. */
        private val outcomes = ConcurrentHashMap<Int, CompletableFuture<HostOutcome>>()

        private fun outcome(number: Int): CompletableFuture<HostOutcome> = outcomes.computeIfAbsent(number) { CompletableFuture() }

        private val reader = thread(name = "events of $name", isDaemon = true) {
            while (!closed) {
                for (event in session.nextEvents(100)) {
                    events += event
                    if (event is InputRequestEvent) session.answerInput(event.requestId, "$name answer")
                    if (event is SettledEvent) outcome(event.snippetNumber).complete(event.outcome)
                }
            }
        }

        /** Waits for snippet [number] to settle; the bound only catches a hang. */
        fun settled(number: Int): HostOutcome = try {
            outcome(number).get(120, TimeUnit.SECONDS)
        } catch (_: TimeoutException) {
            fail("snippet $number did not settle; events: $events")
        }

        fun value(number: Int): Any? = settled(number).result.assertValue().value

        fun displayed(number: Int): List<String> =
            events.filterIsInstance<DisplayEvent>().filter { it.snippetNumber == number }.map { it.data.getValue("text/plain") as String }

        override fun close() {
            session.close()
            closed = true
            reader.join(10_000)
        }
    }

    init {
        a.session.submit("val onlyInA = 1")
        b.session.submit("val onlyInB = 2")
        a.value(1)
        b.value(1)
    }

    /** What a probe in session [own] reports from [places]: its own declaration, its own input. */
    private fun expected(own: String, places: List<String>): List<String> =
        places.map { "$it: vars=[val onlyIn$own: Int = ${if (own == "A") 1 else 2}] read=$own answer" }.sorted()

    @Test
    fun `each session's code finds its own session on every thread and dispatcher`() {
        val code = """
            fun probe(place: String): String {
                DISPLAY("${'$'}own ${'$'}place")
                val listed = vars().lines.filter { it.startsWith("val onlyIn") }.joinToString()
                return "${'$'}place: vars=[${'$'}listed] read=${'$'}{readLine()}"
            }
            val seen = java.util.Collections.synchronizedList(mutableListOf<String>())
            fun next() { step.await(60, java.util.concurrent.TimeUnit.SECONDS) }
            next()
            seen += probe("cell")
            next()
            val started = Thread { seen += probe("thread") }
            started.start()
            started.join()
            next()
            val onDefault = launch(Dispatchers.Default) { seen += probe("launch on Default") }
            await { onDefault.join() }
            next()
            val onIo = async(Dispatchers.IO) { probe("async on IO") }
            seen += await { onIo.await() }
            next()
            val nested = async(Dispatchers.Default) {
                withContext(Dispatchers.IO) {
                    launch(Dispatchers.Default) { seen += probe("nested launch") }.join()
                    async { probe("nested async") }.await()
                }
            }
            seen += await { nested.await() }
            next()
            val threadOfCoroutine = launch(Dispatchers.IO) {
                val inner = Thread { seen += probe("thread of a coroutine") }
                inner.start()
                inner.join()
            }
            await { threadOfCoroutine.join() }
            seen.sorted()
        """.trimIndent()
        // both run at once, step by step: a session found as "the only open one" would be none here
        val inA = a.session.lastSnippetNumber + 1
        val inB = b.session.lastSnippetNumber + 1
        a.session.submit(code, inA, allowStdin = true)
        b.session.submit(code, inB, allowStdin = true)
        val places = listOf(
            "cell",
            "thread",
            "launch on Default",
            "async on IO",
            "nested launch",
            "nested async",
            "thread of a coroutine",
        )
        assertEquals(expected("A", places), a.value(inA))
        assertEquals(expected("B", places), b.value(inB))
        assertEquals(places.map { "A $it" }.sorted(), a.displayed(inA).sorted())
        assertEquals(places.map { "B $it" }.sorted(), b.displayed(inB).sorted())
    }

    @Test
    fun `code of no session gets the errors it got before`() {
        assertEquals("no declarations yet", vars().toString())
        val outside = assertFailsWith<IllegalStateException> { org.kotlinllm.script.runtime.launch {} }
        assertEquals(SCOPE_ERROR, outside.message)

        val number = a.session.lastSnippetNumber + 1
        val code = """
            outsidePool.submit<List<String?>> {
                listOf(
                    vars().toString(),
                    runCatching { launch {} }.exceptionOrNull()?.message,
                    runCatching { readLine() }.exceptionOrNull()?.message,
                )
            }.get(60, java.util.concurrent.TimeUnit.SECONDS)
        """.trimIndent()
        a.session.submit(code, number, allowStdin = true)
        assertEquals(
            listOf(
                "no declarations yet",
                SCOPE_ERROR,
                "this thread cannot read input: it belongs to no session and several are open " +
                    "(input goes to a cell, its coroutines, and the threads it starts while it is the only session)",
            ),
            a.value(number),
        )
    }

    @Test
    fun `workers of the shared dispatchers belong to no session, whoever started them`() {
        val number = a.session.lastSnippetNumber + 1
        // the blocked coroutines of the session make the IO dispatcher start workers for the coroutines that follow
        val code = """
            val release = java.util.concurrent.CountDownLatch(1)
            val blocked = (1..4).map { launch(Dispatchers.IO) { release.await() } }
            val outsideScope = CoroutineScope(Dispatchers.IO)
            val listed = (1..8).map { outsideScope.async { vars().toString() } }
            val seen = await { listed.awaitAll() }.distinct()
            release.countDown()
            await { blocked.joinAll() }
            seen
        """.trimIndent()
        a.session.submit(code, number)
        assertEquals(listOf("no declarations yet"), a.value(number))
    }

    private companion object {
        const val SCOPE_ERROR = "await, launch and async need the ScriptScope of a session: call them from a snippet, " +
            "its coroutines, or pass them scriptScope"
    }
}
