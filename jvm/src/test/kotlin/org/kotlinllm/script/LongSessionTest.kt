package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

/**
 * A long session keeps the spec's semantics while earlier snippets' declarations are looked up through one index
 * and their compiler sessions are trimmed: the newest declaration of a name wins, and an earlier function keeps
 * calling the declaration it was compiled against.
 */
class LongSessionTest {

    @Test
    fun `three hundred redeclaring snippets resolve the newest declaration and earlier functions keep theirs`() = runBlocking {
        ScriptSession().use { session ->
            for (i in 1..300) {
                // `value` and `double` redeclared by every snippet; each `readN` is bound to the `value` of its snippet
                session.execute("val value = $i\nfun double() = value * 2\nfun read$i() = value\nclass Box$i(val x: Int = value)")
                    .assertValue()
                if (i % 50 == 0) {
                    assertEquals(i, session.execute("value").assertValue().value)
                    assertEquals(i * 2, session.execute("double()").assertValue().value)
                }
            }
            assertEquals(300, session.execute("value").assertValue().value)
            assertEquals(600, session.execute("double()").assertValue().value)
            assertEquals(1, session.execute("read1()").assertValue().value)
            assertEquals(150, session.execute("read150()").assertValue().value)
            assertEquals(299 + 300, session.execute("read299() + read300()").assertValue().value)
            assertEquals(7, session.execute("Box7().x").assertValue().value)
            assertEquals(42, session.execute("Box1(42).x").assertValue().value)
            // a failed snippet leaves nothing: `value` is still the 300th
            session.execute("val value = \"text\"\nval broken: Int = \"x\"")
            assertEquals(300, session.execute("value").assertValue().value)
            // a class of an early snippet as a type in a late one
            assertEquals(
                3,
                session.execute("fun boxes(): List<Box2> = listOf(Box2(1), Box2(2))\nboxes().sumOf { it.x }").assertValue().value,
            )
        }
    }
}
