package org.kotlinllm.script

import com.sun.net.httpserver.HttpServer
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
import org.kotlinllm.script.dependencies.Fixtures
import java.net.InetAddress
import java.net.InetSocketAddress
import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.CancellationException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
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
        // an interrupt that comes before the sleep starts is not lost: the sleep then throws at once
        assertTrue(execution.cancel(true))
        val settled = checkNotNull(execution.settled.get(30, TimeUnit.SECONDS)) { "the snippet had started" }
        val error = settled.assertError(ExecutionPhase.EVALUATION)
        assertTrue(error.message.startsWith("java.lang.InterruptedException: sleep interrupted\n"), error.message)
        assertEquals(7, session.execute("keptAcrossCancel").assertValue().value)
    }

    @Test
    fun `cancelling interrupts a busy loop that never checks for interrupts`() = runBlocking {
        val started = session.execute("val loopStarted = java.util.concurrent.CountDownLatch(1)\nloopStarted").assertValue().value
            as java.util.concurrent.CountDownLatch
        session.execute("var spins = 0L").assertValue()
        // the latch opens once the loop has turned, so that cancelling ends a loop that has run
        val loop = "while (true) { if (++spins == 1_000L) loopStarted.countDown() }"
        val execution = session.executeAsync(loop)
        assertTrue(started.await(60, TimeUnit.SECONDS))
        execution.cancel(true)
        val settled = checkNotNull(execution.settled.get(30, TimeUnit.SECONDS)) { "the snippet had started" }
        val error = settled.assertError(ExecutionPhase.EVALUATION)
        assertEquals(
            "java.lang.InterruptedException: the snippet was cancelled while running\n" +
                "  at <snippet body>(snippet${session.lastSnippetNumber}.kts:1)\n  | $loop",
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
        // cancelled before or during the delay alike: a cancelled coroutine's delay ends at once
        withTimeout(30_000) { job.cancelAndJoin() }
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
    fun `a snippet cancelled while it is being compiled is compiled and evaluated`() = runBlocking {
        // Compiling a snippet starts with resolving its dependencies: a repository that answers only once the test
        // has cancelled holds the snippet there, before its evaluation.
        val asked = CountDownLatch(1)
        val answer = CountDownLatch(1)
        val localRepository = Files.createTempDirectory("threading-local-repo")
        try {
            GatedRepository(Fixtures.root, asked, answer).use { repository ->
                val configuration =
                    SessionConfiguration(localRepository = localRepository, defaultRepositories = listOf(repository.url("repo1/")))
                ScriptSession(configuration = configuration).use { compiling ->
                    compiling.execute("var evaluatedAfterCancel = false").assertValue()
                    val execution = compiling.executeAsync(
                        "@file:DependsOn(\"com.example:util:1.0\")\nevaluatedAfterCancel = com.example.util.Util.twice(\"x\") == \"xx\"",
                    )
                    assertTrue(asked.await(60, TimeUnit.SECONDS), "the snippet's dependency was asked for")
                    execution.cancel(true)
                    assertTrue(execution.isCancelled)
                    answer.countDown()
                    checkNotNull(execution.settled.get(120, TimeUnit.SECONDS)) { "the snippet had started" }.assertValue()
                    assertEquals(true, compiling.execute("evaluatedAfterCancel").assertValue().value)
                }
            }
        } finally {
            localRepository.toFile().deleteRecursively()
        }
    }

    @Test
    fun `closing the session cancels launched coroutines and ends its thread`() = runBlocking {
        val closing = ScriptSession()
        val ended = closing.execute(
            "val tickerEnded = java.util.concurrent.CompletableFuture<Throwable?>()\n" +
                "launch { while (true) delay(10) }.invokeOnCompletion { tickerEnded.complete(it) }\ntickerEnded",
        ).assertValue().value as CompletableFuture<*>
        val sessionThread = closing.execute("Thread.currentThread()").assertValue().value as Thread
        assertFalse(ended.isDone, "the launched coroutine runs until the session is closed")
        closing.close()
        sessionThread.join(30_000)
        assertFalse(sessionThread.isAlive, "the session's thread ended")
        val cause = ended.get(30, TimeUnit.SECONDS)
        assertTrue(cause is CancellationException, "the launched coroutine was cancelled, it ended with $cause")
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

/** Serves the files of [root] on 127.0.0.1; each request counts [asked] down and is answered once [answer] opens. */
internal class GatedRepository(
    private val root: Path,
    private val asked: CountDownLatch,
    private val answer: CountDownLatch,
) : AutoCloseable {
    private val server = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0)
    private val executor = Executors.newFixedThreadPool(4)

    init {
        server.createContext("/") { exchange ->
            exchange.use {
                asked.countDown()
                answer.await(60, TimeUnit.SECONDS)
                val file = root.resolve(exchange.requestURI.path.removePrefix("/")).normalize()
                if (!file.startsWith(root) || !Files.isRegularFile(file)) {
                    exchange.sendResponseHeaders(404, -1)
                } else if (exchange.requestMethod == "HEAD") {
                    exchange.sendResponseHeaders(200, -1)
                } else {
                    val bytes = Files.readAllBytes(file)
                    exchange.sendResponseHeaders(200, bytes.size.toLong())
                    exchange.responseBody.write(bytes)
                }
            }
        }
        server.executor = executor
        server.start()
    }

    fun url(path: String): String = "http://127.0.0.1:${server.address.port}/$path"

    override fun close() {
        server.stop(0)
        executor.shutdownNow()
    }
}
