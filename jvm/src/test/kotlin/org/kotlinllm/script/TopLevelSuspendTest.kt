package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** Suspend calls at the top level of a snippet run on the session's scope, as inside `await`. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class TopLevelSuspendTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    private fun value(code: String): Any? = run(code).assertValue().value

    private fun error(code: String, phase: ExecutionPhase): String =
        run(code).assertError(phase).message.replace("snippet${session.lastSnippetNumber}.kts", "snippetN.kts")

    @Test
    fun `property initializers, values, statements, loops and assignments call suspend functions`() {
        run("suspend fun susF(): Int = 42\nvar x = 1\nval seen = mutableListOf<Int>()").assertValue()
        run("val a = susF()").assertValue()
        assertEquals(42, value("a"))
        assertEquals(42, value("susF()"))
        assertEquals(Unit, value("delay(100)"))
        assertEquals(Unit, value("for (i in 1..3) { delay(10); seen += i }"))
        assertEquals(listOf(1, 2, 3), value("seen"))
        assertEquals(Unit, value("x = susF()"))
        assertEquals(42, value("x"))
        assertEquals(44, value("x = susF() + 1\nval (p, q) = susF() to 1\nx + q"))
        assertEquals(listOf(43, 44), value("listOf(1, 2).map { susF() + it }"))
        assertEquals(84, value("val byDelegate by lazyOf(susF())\nbyDelegate + susF()"))
    }

    @Test
    fun `the value and type of a suspend call are those of the call`() {
        // declared in the same snippet: a value-class result of an earlier snippet's function is a separate compiler bug
        assertEquals(
            value("kotlin.time.Duration.parse(\"1.5s\")"),
            value("suspend fun duration() = kotlin.time.Duration.parse(\"1.5s\")\nduration()"),
        )
        assertEquals(7u, value("suspend fun unsigned(): UInt = 7u\nunsigned()"))
        assertEquals(null, value("suspend fun nothing(): String? = null\nnothing()"))
    }

    @Test
    fun `names in a suspending statement resolve as written`() {
        // launch is the session's (the statement does not wait for it), coroutineContext the session's
        run("val launchGate = CompletableDeferred<Unit>()").assertValue()
        run("val job = run { delay(1); launch { launchGate.await() } }").assertValue()
        assertEquals(true, value("run { delay(1); job.isActive && coroutineContext == scriptScope.coroutineContext }"))
        run("launchGate.complete(Unit)").assertValue()
    }

    @Test
    fun `a genuine error beside a suspend call is reported in the user's text`() {
        run("suspend fun text(): Int = 1").assertValue()
        assertEquals(
            "snippetN.kts:2:15: error: Initializer type mismatch: expected 'String', actual 'Int'.\n" +
                "  | val s: String <error>=</error> 5",
            error("val n = text()\nval s: String = 5", ExecutionPhase.COMPILATION),
        )
        assertEquals(
            "snippetN.kts:1:15: error: Initializer type mismatch: expected 'String', actual 'Int'.\n" +
                "  | val t: String <error>=</error> text()",
            error("val t: String = text()", ExecutionPhase.COMPILATION),
        )
        // what the rewrite cannot help stays the compiler's report on the user's code; the failed snippet left nothing
        assertEquals(
            "snippetN.kts:1:11: error: Suspension functions can only be called within coroutine body.\n" +
                "  | val f = { <error>delay</error>(1) }",
            error("val f = { delay(1) }", ExecutionPhase.COMPILATION),
        )
        assertTrue(error("n", ExecutionPhase.COMPILATION).startsWith("snippetN.kts:1:1: error: Unresolved reference 'n'."))
    }

    @Test
    fun `warnings of a suspending statement are located in the user's text`() {
        val result = run("suspend fun one(): Int = 1\ndelay(1); val w = one() as Int\nw").assertValue()
        assertEquals(1, result.value)
        assertEquals(
            listOf(
                "snippet${session.lastSnippetNumber}.kts:2:25: warning: Cast is redundant.\n  | delay(1); val w = one() <error>as Int</error>",
            ),
            result.warnings,
        )
    }

    @Test
    fun `a suspend call inside a function is still the user's error`() {
        assertEquals(
            "snippetN.kts:1:15: error: Suspend function 'suspend fun delay(timeMillis: Long): Unit' can only be called " +
                "from a coroutine or another suspend function.\n  | fun plain() { <error>delay</error>(1) }",
            error("fun plain() { delay(1) }", ExecutionPhase.COMPILATION),
        )
    }

    @Test
    fun `an exception thrown in a suspending statement is located at the user's line`() {
        run(
            "suspend fun failing(): Int { delay(1); error(\"failed\") }\nsuspend fun failingAtOnce(): Int = error(\"at once\")",
        ).assertValue()
        assertEquals(
            "java.lang.IllegalStateException: at once\n" +
                "  at failingAtOnce(snippetN.kts:2)\n  | suspend fun failingAtOnce(): Int = error(\"at once\")\n" +
                "  at <snippet body>(snippetN.kts:2)\n  |   val c = 1 + failingAtOnce()",
            error("val b = 1\n  val c = 1 + failingAtOnce()", ExecutionPhase.EVALUATION)
                .replace("snippet${session.lastSnippetNumber - 1}.kts", "snippetN.kts"),
        )
        val resumed = error("\nfor (i in 1..2) { failing() }", ExecutionPhase.EVALUATION)
        assertTrue(resumed.startsWith("java.lang.IllegalStateException: failed\n"), resumed)
        assertTrue(resumed.endsWith("  at <snippet body>(snippetN.kts:2)\n  | for (i in 1..2) { failing() }"), resumed)
    }

    @Test
    fun `cancelling a suspending statement cancels it and keeps the session`() = runBlocking {
        session.execute("val keep = 42\nsuspend fun delayed(): Int = 1").assertValue()
        val cases = listOf(
            "suspend fun slow(gate: CountDownLatch): Int { gate.countDown(); delay(60_000); return 1 }" to "val slowly = slow(gate)",
            "suspend fun spin(gate: CountDownLatch): Int { var n = 0L; while (true) { if (++n == 1_000L) gate.countDown() } }" to
                "val spun = spin(gate)",
        )
        for ((function, call) in cases) {
            val gate = session.execute("import java.util.concurrent.CountDownLatch\n$function\nval gate = CountDownLatch(1)\ngate")
                .assertValue().value as CountDownLatch
            val execution = session.executeAsync(call)
            assertTrue(gate.await(60, TimeUnit.SECONDS))
            assertTrue(execution.cancel(true))
            val settled = checkNotNull(execution.settled.get(30, TimeUnit.SECONDS)) { "the snippet had started" }
            val message = settled.assertError(ExecutionPhase.EVALUATION).message
            assertTrue(message.startsWith("java.lang.InterruptedException: the snippet was cancelled while running\n"), message)
            assertTrue(message.endsWith("  at <snippet body>(snippet${execution.snippetNumber}.kts:1)\n  | $call"), message)
            assertEquals(42, session.execute("keep").assertValue().value)
        }
        assertEquals(43, session.execute("keep + delayed()").assertValue().value)
    }
}
