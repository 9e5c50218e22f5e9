package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

/**
 * A long session keeps the spec's semantics while earlier snippets' declarations are looked up through one index
 * and their compiler sessions are trimmed: the newest declaration of a name wins, and an earlier function keeps
 * calling the declaration it was compiled against; classes and interfaces of snippets far apart (on a Java class)
 * work together.
 */
class LongSessionTest {

    @Test
    fun `three hundred redeclaring snippets resolve the newest declaration and earlier functions keep theirs`() = runBlocking {
        ScriptSession().use { session ->
            for (i in 1..300) {
                // `value` and `double` redeclared by every snippet; each `readN` is bound to the `value` of its snippet
                session.execute("val value = $i\nfun double() = value * 2\nfun read$i() = value\nclass Box$i(val x: Int = value)")
                    .assertValue()
                // a hierarchy across snippets far apart, on a Java class, and a fun interface used late
                when (i) {
                    5 -> session.execute("open class Shape(val sides: Int) : java.util.ArrayList<String>() { open fun name() = \"shape\" }")
                    10 -> session.execute("fun interface Op { fun apply(x: Int): Int }")
                    200 -> session.execute("val triple = Op { it * 3 }")
                    250 -> session.execute("class Square : Shape(4) { override fun name() = \"square\" }")
                    else -> null
                }?.assertValue()
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
            assertEquals(
                "square41",
                session.execute("Square().apply { add(\"a\") }.let { it.name() + it.sides + it.size }").assertValue().value,
            )
            assertEquals(21, session.execute("triple.apply(read7())").assertValue().value)
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
