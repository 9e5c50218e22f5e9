package org.kotlinllm.script.host

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import kotlin.test.assertEquals

/**
 * Uncaught exceptions of threads and coroutines that snippets started: rendered like the snippets' own errors, on
 * the stderr of the snippet running when they happen, and the session goes on with its state.
 */
@Timeout(180)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ThreadErrorsTest {

    private val session = HostSession.create(emptyMap(), defaultSettings())
    private val events = EventReader(session)

    init {
        events.settled(session.submit("val keep = 42").snippetNumber)
    }

    @AfterAll
    fun close() = session.close()

    /** Runs [code] as the next snippet; what it printed on stderr, tagged with its number, before it settled. */
    private fun stderrOf(code: String): String {
        val number = session.submit(code).snippetNumber
        val before = events.events.size
        events.settled(number)
        val mine = events.events.drop(before)
        val settledAt = mine.indexOfFirst { it is SettledEvent && it.snippetNumber == number }
        val outcome = (mine[settledAt] as SettledEvent).outcome
        assertEquals(null, outcome.ename, "snippet $number succeeded: ${outcome.evalue}")
        val printed = mine.take(settledAt).filterIsInstance<OutputEvent>().filter { it.stream == OutputEvent.STDERR }
        assertEquals(listOf(number), printed.map { it.snippetNumber }.distinct(), "stderr of snippet $number: $printed")
        assertKeepsState()
        return printed.joinToString("") { it.text }
    }

    private fun assertKeepsState() {
        val number = session.submit("keep").snippetNumber
        assertEquals("42", events.settled(number).valueText)
    }

    private fun next(): Int = session.lastSnippetNumber + 1

    @Test
    fun `a thread's exception shows the snippet's frames and source line`() {
        val number = next()
        assertEquals(
            "Exception in thread \"worker\": java.lang.IllegalStateException: boom\n" +
                "  at <snippet body>(snippet$number.kts:1)\n" +
                "  | kotlin.concurrent.thread(name = \"worker\") { error(\"boom\") }.join()\n",
            stderrOf("kotlin.concurrent.thread(name = \"worker\") { error(\"boom\") }.join()"),
        )
        val started = next()
        assertEquals(
            "Exception in thread \"plain\": java.lang.IllegalArgumentException: from Thread\n" +
                "  at <snippet body>(snippet$started.kts:1)\n" +
                "  | val plain = Thread({ throw IllegalArgumentException(\"from Thread\") }, \"plain\")\n",
            stderrOf("val plain = Thread({ throw IllegalArgumentException(\"from Thread\") }, \"plain\")\nplain.start()\nplain.join()"),
        )
    }

    @Test
    fun `an executor task's exception is rendered the same way`() {
        val number = next()
        val code = """
            val workers = java.util.concurrent.CopyOnWriteArrayList<Thread>()
            val pool = java.util.concurrent.Executors.newSingleThreadExecutor { task -> Thread(task, "pool-worker").also { workers += it } }
            pool.execute { check(workers.isEmpty()) { "in the pool" } }
            pool.shutdown()
            pool.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES)
            workers.forEach { it.join() }
        """.trimIndent()
        assertEquals(
            "Exception in thread \"pool-worker\": java.lang.IllegalStateException: in the pool\n" +
                "  at <snippet body>(snippet$number.kts:3)\n" +
                "  | pool.execute { check(workers.isEmpty()) { \"in the pool\" } }\n",
            stderrOf(code),
        )
    }

    @Test
    fun `a launched coroutine's exception is rendered the same way`() {
        val number = next()
        assertEquals(
            "Exception in a launched coroutine: java.lang.IllegalStateException: in a coroutine\n" +
                "  at <snippet body>(snippet$number.kts:1)\n" +
                "  | val failing = launch { error(\"in a coroutine\") }\n",
            stderrOf("val failing = launch { error(\"in a coroutine\") }\nawait { failing.join() }"),
        )
    }

    @Test
    fun `a thread of a function declared in an earlier snippet shows that snippet's line`() {
        val declaring = next()
        events.settled(
            session.submit(
                "fun startWorker(): Thread = kotlin.concurrent.thread(name = \"declared\") {\n    require(keep < 0) { \"keep is \$keep\" }\n}",
            ).snippetNumber,
        )
        assertEquals(
            "Exception in thread \"declared\": java.lang.IllegalArgumentException: keep is 42\n" +
                "  at startWorker(snippet$declaring.kts:2)\n" +
                "  |     require(keep < 0) { \"keep is \$keep\" }\n",
            stderrOf("startWorker().join()"),
        )
    }

    @Test
    fun `an exception of a thread that ran no snippet code is printed as the JVM prints it`() {
        val outside = Thread({ error("outside") }, "outside")
        outside.start()
        outside.join()
        // the thread prints to the only capturing session, as everything it prints does
        events.printed(OutputEvent.STDERR, "Exception in thread \"outside\" java.lang.IllegalStateException: outside\n\tat ")
        assertKeepsState()
    }
}
