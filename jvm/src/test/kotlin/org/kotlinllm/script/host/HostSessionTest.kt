package org.kotlinllm.script.host

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.assertThrows
import org.kotlinllm.script.ExecutionPhase
import org.kotlinllm.script.GatedRepository
import org.kotlinllm.script.ScriptResult
import org.kotlinllm.script.assertError
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.dependencies.Fixtures
import org.kotlinllm.script.dependencies.RepositoryServer
import java.nio.file.Files
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** The host API: events in order and tagged with their snippet, one settled event per snippet, facts as data. */
@Timeout(180)
class HostSessionTest {

    private fun gates(count: Int): Map<String, CountDownLatch> = (1..count).associate { "gate$it" to CountDownLatch(1) }

    @Test
    fun `a snippet's output comes before its settled event, in the order printed`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            session.submit("println(\"one\")\nSystem.err.println(\"two\")\nprint(\"three\")\n4")
            session.submit("val thread = Thread { println(\"from a thread\") }\nthread.start()\nthread.join()")
            events.settled(2)
            assertEquals(
                listOf("1 stdout: one\n", "1 stderr: two\n", "1 stdout: three", "1 settled", "2 stdout: from a thread\n", "2 settled"),
                events.timeline(),
            )
            assertEquals("4", (events.events[events.events.indexOfFirst { it is SettledEvent }] as SettledEvent).outcome.valueText)
        }
    }

    @Test
    fun `output is tagged with the snippet running when it was printed, else the last that ran, else 0`() {
        val gates = gates(3)
        HostSession.create(gates, defaultSettings()).use { session ->
            val events = EventReader(session)
            // a thread of no session prints to the only capturing one; no snippet ran yet
            println("before any snippet")
            events.printed(OutputEvent.STDOUT, "before any snippet\n")
            session.submit(
                "launch { gate1.await(); println(\"after its snippet\") }\nlaunch { gate2.await(); println(\"during a later snippet\"); gate3.countDown() }",
            )
            events.settled(1)
            gates.getValue("gate1").countDown()
            events.printed(OutputEvent.STDOUT, "after its snippet\n")
            session.submit("println(\"during its snippet\")\ngate2.countDown()\ngate3.await()", 5)
            events.settled(5)
            assertEquals(
                listOf(
                    "0 stdout: before any snippet\n",
                    "1 settled",
                    "1 stdout: after its snippet\n",
                    "5 stdout: during its snippet\nduring a later snippet\n",
                    "5 settled",
                ),
                events.timeline(),
            )
        }
    }

    @Test
    fun `every submitted snippet settles exactly once, also one cancelled before it started`() {
        val gates = gates(1)
        HostSession.create(gates, defaultSettings()).use { session ->
            val events = EventReader(session)
            val blocker = session.submit("gate1.await()\n\"blocker\"")
            val queued = session.submit("println(\"never\")")
            queued.cancel()
            assertTrue(queued.isCancelled)
            gates.getValue("gate1").countDown()
            val last = session.submit("\"after\"")
            events.settled(last.snippetNumber)
            assertEquals(listOf("1 settled", "2 settled", "3 settled"), events.timeline())
            val outcome = events.settled(queued.snippetNumber)
            assertTrue(outcome.cancelled)
            outcome.result.assertError(ExecutionPhase.EVALUATION)
            assertEquals("java.lang.InterruptedException", outcome.ename)
            assertEquals("the snippet was cancelled before it started", outcome.evalue)
            assertFalse(outcome.notRun, "not run is the fact of a snippet cancelled while it compiled")
            assertFalse(events.settled(blocker.snippetNumber).cancelled)
            assertEquals("after", events.settled(last.snippetNumber).valueText)
            blocker.cancel()
            assertFalse(blocker.isCancelled, "a settled snippet is not cancelled any more")
        }
    }

    @Test
    fun `errors carry their Jupyter name and value`() {
        val gates = gates(1)
        HostSession.create(gates, defaultSettings()).use { session ->
            val events = EventReader(session)
            session.submit("val number: Int = \"text\"")
            session.submit("throw IllegalStateException(\"bad state\")")
            session.submit("class Boom(message: String) : Exception(message)\nthrow Boom(\"boom\")")
            session.submit("throw RuntimeException()")
            val sleeping = session.submit("gate1.countDown()\nThread.sleep(60_000)")

            val compilation = events.settled(1)
            assertEquals("CompilationError", compilation.ename)
            assertEquals(compilation.result.assertError(ExecutionPhase.COMPILATION).message.lines().first(), compilation.evalue)
            assertTrue(compilation.evalue.orEmpty().startsWith("snippet1.kts:1:17: error: Initializer type mismatch"), compilation.evalue)

            val runtime = events.settled(2)
            assertEquals("java.lang.IllegalStateException", runtime.ename)
            assertEquals("bad state", runtime.evalue)
            assertFalse(runtime.cancelled)

            val declared = events.settled(3)
            assertEquals("Boom", declared.ename)
            assertEquals("boom", declared.evalue)

            val noMessage = events.settled(4)
            assertEquals("java.lang.RuntimeException", noMessage.ename)
            assertEquals("", noMessage.evalue)

            gates.getValue("gate1").await()
            sleeping.cancel()
            val interrupted = events.settled(sleeping.snippetNumber)
            assertTrue(interrupted.cancelled)
            assertEquals("java.lang.InterruptedException", interrupted.ename)
            assertEquals("sleep interrupted", interrupted.evalue)
            assertEquals(ExecutionPhase.COMPILATION, compilation.phase)
            assertEquals(compilation.result.assertError(ExecutionPhase.COMPILATION).message, compilation.message)
            assertEquals(ExecutionPhase.EVALUATION, runtime.phase)
            for (outcome in listOf(compilation, runtime, declared, noMessage, interrupted)) {
                assertNull(outcome.value)
                assertEquals(emptyList(), outcome.warnings)
                assertEquals(emptyMap(), outcome.valueData)
                assertNull(outcome.valueText)
                assertFalse(outcome.isUnit)
                assertFalse(outcome.notRun)
                assertEquals(emptyList(), outcome.resolvedDependencies)
            }
        }
    }

    @Test
    fun `a snippet cancelled while it compiled did not run, and its outcome says so as a fact`() {
        // Compiling starts with resolving the snippet's dependencies: a repository answering only once the test has
        // cancelled holds the snippet there, before its evaluation.
        val asked = CountDownLatch(1)
        val answer = CountDownLatch(1)
        val localRepository = Files.createTempDirectory("host-local-repo")
        try {
            GatedRepository(Fixtures.root, asked, answer).use { repository ->
                val settings = HostSettings(localRepository.toString(), listOf(repository.url("repo1/")), resolutionTimeoutMillis = 60_000L)
                HostSession.create(emptyMap(), settings).use { session ->
                    val events = EventReader(session)
                    session.submit("var ran = false")
                    val compiling = session.submit("@file:DependsOn(\"com.example:util:1.0\")\nran = true")
                    assertTrue(asked.await(60, TimeUnit.SECONDS), "the snippet's dependency was asked for")
                    compiling.cancel()
                    answer.countDown()
                    val outcome = events.settled(compiling.snippetNumber)
                    assertTrue(outcome.notRun)
                    assertTrue(outcome.cancelled)
                    outcome.result.assertError(ExecutionPhase.EVALUATION)
                    assertEquals("java.lang.InterruptedException", outcome.ename)
                    assertEquals("the snippet was cancelled while it compiled: it did not run", outcome.evalue)
                    assertEquals(HostExecution.NOT_RUN, outcome.evalue, "the words a host reads to say the same")
                    session.submit("ran")
                    val after = events.settled(compiling.snippetNumber + 1)
                    assertEquals("false", after.valueText)
                    assertFalse(after.notRun)
                }
            }
        } finally {
            localRepository.toFile().deleteRecursively()
        }
    }

    @Test
    fun `a value's text is its toString, also for null and for a toString that throws`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            session.submit("val unit = Unit")
            session.submit("null")
            session.submit("listOf(1, 2)")
            session.submit("class Bad { override fun toString(): String = throw IllegalStateException(\"no text\") }\nBad()")

            val unit = events.settled(1)
            assertTrue(unit.isUnit)
            assertNull(unit.valueText)
            assertEquals(ScriptResult.Value(Unit), unit.result)
            assertEquals("null", events.settled(2).valueText)
            assertFalse(events.settled(2).isUnit)
            assertEquals("[1, 2]", events.settled(3).valueText)
            assertEquals("<toString() of Bad failed: java.lang.IllegalStateException: no text>", events.settled(4).valueText)
            for (number in 1..4) {
                assertNull(events.settled(number).ename)
                assertNull(events.settled(number).evalue)
                assertNull(events.settled(number).phase)
                assertNull(events.settled(number).message)
                assertEquals(number, events.settled(number).snippetNumber)
            }
            assertNull(unit.value, "Unit is no value")
            assertEquals(listOf(1, 2), events.settled(3).value)
        }
    }

    @Test
    fun `resolved dependencies say whether the engine chose a pre-release`() {
        val localRepository = Files.createTempDirectory("local-repo")
        RepositoryServer(Fixtures.root).use { server ->
            HostSession.create(
                emptyMap(),
                HostSettings(localRepository.toString(), listOf(server.url("repo1/")), resolutionTimeoutMillis = 8_000L),
            ).use { session ->
                val events = EventReader(session)
                session.submit("@file:DependsOn(\"com.example:greeter\")\n@file:DependsOn(\"com.example:onlypre\")\n1")
                val outcome = events.settled(1)
                outcome.result.assertValue()
                assertEquals(
                    listOf(
                        Triple("com.example:greeter", "1.1", false),
                        Triple("com.example:onlypre", "1.0-beta-2", true),
                    ),
                    outcome.resolvedDependencies.map { Triple(it.coordinates, it.version, it.preRelease) },
                )
            }
        }
        localRepository.toFile().deleteRecursively()
    }

    @Test
    fun `completion asked from the start waits for the compiler and says so`() {
        HostSession.create(mapOf("greeting" to "Hello"), defaultSettings()).use { session ->
            // the compiler takes seconds to start on the session's thread; the first completion waits for it
            val first = session.complete("gre", 3)
            assertEquals("greeting", first.matches.first())
            assertTrue(first.byType && first.waitedMillis > 0, "by type ${first.byType}, waited ${first.waitedMillis} ms")
            assertTrue("while" in session.complete("whi", 3).matches)
            val events = EventReader(session)
            session.submit("val greetings = 2")
            events.settled(1)
            assertEquals(listOf("greeting", "greetings"), session.complete("gre", 3).matches)
        }
    }

    @Test
    fun `snippet numbers must grow, and a closed session has no events`() {
        val session = HostSession.create(emptyMap(), defaultSettings())
        val events = EventReader(session)
        assertEquals(3, session.submit("1", 3).snippetNumber)
        assertEquals(4, session.submit("2").snippetNumber)
        assertEquals(4, session.lastSnippetNumber)
        val error = assertThrows<IllegalArgumentException> { session.submit("3", 4) }
        assertEquals("snippet number 4 must be greater than 4, the last one used", error.message)
        assertEquals(5, session.submit(" \n").snippetNumber, "a blank snippet is numbered and settles too")
        assertTrue(events.settled(5).isUnit)
        assertEquals(listOf("3 settled", "4 settled", "5 settled"), events.timeline())
        session.close()
        assertEquals(emptyList(), session.nextEvents(60_000), "returns at once")
    }

    @Test
    fun `check compiles as the next snippet would, reports as a run would, and changes nothing`() {
        HostSession.create(emptyMap(), defaultSettings()).use { session ->
            val events = EventReader(session)
            session.submit("val before = 1")
            events.settled(1)
            val wrong = "val typed: Int = \"text\"\nprintln(\"never\")"
            val checked = session.check(wrong)
            val checkedError = checked.result as ScriptResult.Error
            assertEquals(ExecutionPhase.COMPILATION, checkedError.phase)
            assertEquals(2, checked.snippetNumber, "checked as the next snippet")
            assertEquals(ExecutionPhase.COMPILATION, checked.phase)
            assertEquals(checkedError.message, checked.message)
            assertEquals(
                "snippet2.kts:1:16: error: Initializer type mismatch: expected 'Int', actual 'String'.",
                checkedError.message.lines().first(),
            )
            assertEquals(listOf("INITIALIZER_TYPE_MISMATCH"), checked.diagnostics.map { it.name })
            assertEquals(1, session.lastSnippetNumber, "a check takes no snippet number")

            val deprecated = "@Deprecated(\"use g\") fun f() = 1\nval declared = f()\nprintln(\"not run\")\ndeclared"
            val ok = session.check(deprecated)
            assertTrue(ok.isUnit, "a check runs nothing, so its value is Unit")
            assertEquals(
                listOf("snippet2.kts:2:16: warning: 'fun f(): Int' is deprecated. use g.\n  | val declared = <error>f</error>()"),
                (ok.result as ScriptResult.Value).warnings,
            )
            assertEquals((ok.result as ScriptResult.Value).warnings, ok.warnings)
            assertEquals(2, ok.snippetNumber)
            assertEquals(1, session.lastSnippetNumber)
            // the run reports what its check did, under the same name
            session.submit(wrong)
            assertEquals(checkedError.message, (events.settled(2).result as ScriptResult.Error).message)
            // nothing of the checked snippets was declared, printed or kept by the compiler
            session.submit("declared")
            val unresolved = events.settled(3)
            assertTrue(
                (unresolved.result as ScriptResult.Error).message.startsWith("snippet3.kts:1:1: error: Unresolved reference 'declared'"),
            )
            session.submit(deprecated)
            assertEquals("1", events.settled(4).valueText)
            assertEquals("", events.text(OutputEvent.STDOUT).replace("not run\n", ""), "only the run printed")
        }
    }
}
