package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals

/** `internal` declarations are visible to the later snippets of the session, which is one module to its user. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InternalDeclarationsTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    @Test
    fun `internal members of a class are read, written and called from later snippets`() {
        run("class Counter { internal var count = 1\n    internal fun twice() = count * 2 }").assertValue()
        run("val counter = Counter()").assertValue()
        run("counter.count = 5").assertValue()
        assertEquals(5, run("counter.count").assertValue().value)
        assertEquals(10, run("counter.twice()").assertValue().value)
    }

    @Test
    fun `internal top-level functions, properties and classes are used from later snippets`() {
        run("internal fun three() = 3\ninternal val seven = 7\ninternal class Box internal constructor(val n: Int)").assertValue()
        assertEquals(3, run("three()").assertValue().value)
        assertEquals(7, run("seven").assertValue().value)
        assertEquals(4, run("Box(4).n").assertValue().value)
    }

    @Test
    fun `an internal override of an earlier snippet's open member is called`() {
        run("open class Shape { internal open fun sides() = 0 }").assertValue()
        run("class Square : Shape() { override fun sides() = 4 }").assertValue()
        assertEquals(4, run("val shape: Shape = Square()\nshape.sides()").assertValue().value)
    }

    @Test
    fun `an error beside an internal modifier is located in the user's text`() {
        val message = run("internal val n: Int = \"x\"").assertError(ExecutionPhase.COMPILATION).message
        assertEquals(
            "snippet${session.lastSnippetNumber}.kts:1:21: error: Initializer type mismatch: expected 'Int', actual 'String'.\n" +
                "  | internal val n: Int <error>=</error> \"x\"",
            message,
        )
    }

    @Test
    fun `a published internal declaration stays internal, and a name internal is left alone`() {
        assertEquals(1, run("@PublishedApi internal fun published() = 1\npublished()").assertValue().value)
        assertEquals(2, run("val internal = 1\ninternal + 1").assertValue().value)
    }
}
