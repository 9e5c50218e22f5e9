package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** Exceptions of snippets: the header, the snippets' frames with their source lines, causes. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RuntimeErrorsTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun error(code: String): String {
        val message = runBlocking { session.execute(code) }.assertError(ExecutionPhase.EVALUATION).message
        return message.replace("snippet${session.lastSnippetNumber}.kts", "snippetN.kts")
    }

    @Test
    fun `exceptions declared in snippets are named as declared`() {
        runBlocking {
            session.execute("class Boom(message: String) : Exception(message)\nclass Outer { class Inner : RuntimeException() }")
        }.assertValue()
        assertEquals("Boom: bad\n  at <snippet body>(snippetN.kts:1)\n  | throw Boom(\"bad\")", error("throw Boom(\"bad\")"))
        assertEquals("Outer.Inner\n  at <snippet body>(snippetN.kts:1)\n  | throw Outer.Inner()", error("throw Outer.Inner()"))
    }

    @Test
    fun `methods of classes and objects are named Class dot method, lambdas folded into their holder`() {
        assertEquals(
            """
            java.lang.IllegalArgumentException: negative
              at Checker.check(snippetN.kts:2)
              |     fun check(v: Int) { require(v > 0) { "negative" } }
              at <snippet body>(snippetN.kts:4)
              | listOf(1, -1).forEach { Checker().check(it) }
            """.trimIndent(),
            error(
                "class Checker {\n    fun check(v: Int) { require(v > 0) { \"negative\" } }\n}\nlistOf(1, -1).forEach { Checker().check(it) }",
            ),
        )
        assertEquals(
            """
            java.lang.IllegalStateException: from object
              at Thrower.go(snippetN.kts:1)
              | object Thrower { fun go(): Nothing = error("from object") }
              at <snippet body>(snippetN.kts:3)
              | runIt { Thrower.go() }
              at runIt(snippetN.kts:2)
              | fun runIt(block: () -> Unit) = block()
              at <snippet body>(snippetN.kts:3)
              | runIt { Thrower.go() }
            """.trimIndent(),
            error(
                "object Thrower { fun go(): Nothing = error(\"from object\") }\nfun runIt(block: () -> Unit) = block()\nrunIt { Thrower.go() }",
            ),
        )
    }

    @Test
    fun `frames of earlier snippets show their own source`() {
        runBlocking { session.execute("fun failDeep(x: Int): Int {\n    check(x < 3) { \"too big: \$x\" }\n    return x\n}") }.assertValue()
        val declaring = session.lastSnippetNumber
        assertEquals(
            "java.lang.IllegalStateException: too big: 5\n" +
                "  at failDeep(snippet$declaring.kts:2)\n" +
                "  |     check(x < 3) { \"too big: \$x\" }\n" +
                "  at <snippet body>(snippetN.kts:1)\n" +
                "  | failDeep(5)",
            error("failDeep(5)"),
        )
    }

    @Test
    fun `a stack overflow renders its recursion collapsed in under 2 kB`() {
        val message = error("fun down(n: Int): Int = down(n + 1) + 1\ndown(0)")
        assertTrue(message.length < 2048, "${message.length} chars")
        assertTrue(
            message.startsWith(
                "java.lang.StackOverflowError\n  at down(snippetN.kts:1)\n  | fun down(n: Int): Int = down(n + 1) + 1\n  ... the frame above repeats ",
            ),
            message,
        )
        val mutual = error("fun ping(n: Int): Int = pong(n + 1)\nfun pong(n: Int): Int = ping(n + 1)\nping(0)")
        assertTrue(mutual.length < 2048, "${mutual.length} chars")
        assertTrue("  ... the 2 frames above repeat " in mutual, mutual)
    }

    @Test
    fun `an OutOfMemoryError of the heap says the limit and what to do, and the session keeps its values`() {
        // one array past the heap limit fails at once, without filling the heap the other tests share
        assertTrue(Runtime.getRuntime().maxMemory() < 8L * (Int.MAX_VALUE - 8), "the test needs a heap under 16 GB")
        runBlocking { session.execute("val keptThroughOom = 42") }.assertValue()
        val message = error("val huge = LongArray(Int.MAX_VALUE - 8)")
        val limit = Runtime.getRuntime().maxMemory() / (1024 * 1024)
        assertEquals(
            "java.lang.OutOfMemoryError: Java heap space\n" +
                "  at <snippet body>(snippetN.kts:1)\n" +
                "  | val huge = LongArray(Int.MAX_VALUE - 8)\n" +
                "hint: the heap limit is $limit MB; raise it with the kernel setting max_heap (e.g. --KotlinKernel.max_heap=4g) " +
                "or the JVM option -Xmx. No value of the session holds 1 MB or more: the memory was taken by the cell's " +
                "own work, released now that it ended",
            message,
        )
        assertEquals(42, runBlocking { session.execute("keptThroughOom") }.assertValue().value)
        assertTrue("hint:" !in error("throw OutOfMemoryError(\"Metaspace\")"), "only the heap's OutOfMemoryError has the hint")
    }

    @Test
    fun `causes are rendered the same way`() {
        assertEquals(
            """
            java.lang.RuntimeException: outer
              at wrapFailure(snippetN.kts:2)
              |     try { error("inner") } catch (e: Exception) { throw RuntimeException("outer", e) }
              at <snippet body>(snippetN.kts:4)
              | wrapFailure()
            Caused by: java.lang.IllegalStateException: inner
              at wrapFailure(snippetN.kts:2)
              |     try { error("inner") } catch (e: Exception) { throw RuntimeException("outer", e) }
              at <snippet body>(snippetN.kts:4)
              | wrapFailure()
            """.trimIndent(),
            error(
                "fun wrapFailure() {\n    try { error(\"inner\") } catch (e: Exception) { throw RuntimeException(\"outer\", e) }\n}\nwrapFailure()",
            ),
        )
    }

    @Test
    fun `an exception inside await shows the coroutine's frames`() {
        assertEquals(
            "java.lang.IllegalStateException: in async\n" +
                "  at <snippet body>(snippetN.kts:1)\n  | val failing = async { error(\"in async\") }\n" +
                "  at <snippet body>(snippetN.kts:2)\n  | await { failing.await() }",
            error("val failing = async { error(\"in async\") }\nawait { failing.await() }"),
        )
    }

    @Test
    fun `an exception inside inlined library code points at the calling line`() {
        val message = error("val items = listOf(1, 2, 3)\nval total = items.sumOf { 10 / (it - 2) }\ntotal")
        assertEquals(
            "java.lang.ArithmeticException: / by zero\n  at <snippet body>(snippetN.kts:2)\n  | val total = items.sumOf { 10 / (it - 2) }",
            message,
        )
    }
}
