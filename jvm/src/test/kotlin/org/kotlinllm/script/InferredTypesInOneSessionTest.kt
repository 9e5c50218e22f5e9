package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals

/**
 * Declarations of an inferred type use the declarations of earlier snippets, also when the same snippet needs their
 * type before their turn (by using them, or by a declaration before them), as in a plain Kotlin file: the cases of
 * [InferredTypesTest] as they pile up in one session, where names are redeclared and snippets fail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InferredTypesInOneSessionTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun value(code: String): Any? = runBlocking { session.execute(code) }.assertValue().value

    @Test
    fun `a function of an earlier snippet, used in one of inferred type that the snippet uses`() {
        value("fun mul(a: Int, b: Int) = a * b")
        assertEquals(6, value("fun f(a: Int) = mul(a, 2)\nf(3)"))
        assertEquals(Unit, value("fun f2(a: Int) = mul(a, 2)\nprintln(f2(3))"))
        assertEquals(6, value("fun f3(a: Int) = mul(a, 2)\nval r3: Int = f3(3)\nr3"))
        assertEquals(10, value("val r4 = f4(5)\nfun f4(a: Int) = mul(a, 2)\nr4"))
        // g needs f's type before f's turn
        assertEquals(6, value("fun g() = f5(3)\nfun f5(a: Int) = mul(a, 2)\ng()"))
        assertEquals(8, value("f(4)"))
    }

    @Test
    fun `a class of an earlier snippet`() {
        value("class Plain")
        assertEquals(false, value("fun isPlain(x: Any) = x is Plain\nisPlain(1)"))
        assertEquals(true, value("isPlain(Plain())"))
    }

    @Test
    fun `a property with a getter and an inferred type`() {
        value("fun base() = 10")
        assertEquals(20, value("val twice get() = base() * 2\ntwice"))
    }

    @Test
    fun `members of a class use earlier snippets`() {
        value("val earlier = 1\nclass Box(val v: Int) { fun get() = v }")
        assertEquals(1, value("class W { val p = earlier }\nW().p"))
        assertEquals(10, value("class Holder { val b = Box(4); fun twice() = b.get() * 2 + earlier + earlier }\nHolder().twice()"))
    }

    @Test
    fun `extension functions and properties`() {
        value("fun Int.double() = this * 2\nval String.shout get() = uppercase() + \"!\"")
        assertEquals("12HI!", value("fun quad(x: Int) = x.double().double()\nval loud get() = \"hi\".shout\nquad(3).toString() + loud"))
    }

    @Test
    fun `generic functions`() {
        value("fun <T> twiceList(x: T) = listOf(x, x)")
        assertEquals("a, a", value("fun pairs(s: String) = twiceList(s).joinToString()\npairs(\"a\")"))
        assertEquals(listOf(1, 1), value("fun <T> again(x: T) = twiceList(x)\nagain(1)"))
    }

    @Test
    fun `functions returning earlier snippets' classes and lambdas`() {
        value("data class Point(val x: Int, val y: Int)\nfun offset() = 1")
        assertEquals(8, value("fun origin() = Point(0, 2)\nfun adder(n: Int) = { x: Int -> x + n + offset() + origin().y }\nadder(2)(3)"))
        assertEquals("Point(x=0, y=2)", value("origin()").toString())
        assertEquals(6, value("adder(1)(2)"))
    }

    @Test
    fun `operators of earlier snippets, called without their name`() {
        value(
            "data class Vec(val x: Int)\noperator fun Vec.plus(o: Vec) = Vec(x + o.x)\noperator fun Vec.get(i: Int) = x * i\n" +
                "class Seven { operator fun getValue(t: Any?, p: Any?) = 7 }",
        )
        assertEquals(
            "Vec(x=3) 6 8",
            value(
                "fun sum() = Vec(1) + Vec(2)\nfun index() = Vec(3)[2]\nval seven by Seven()\nfun plusOne() = seven + 1\n\"\${sum()} \${index()} \${plusOne()}\"",
            ),
        )
    }

    @Test
    fun `objects, enums, interfaces, type aliases and destructured properties of earlier snippets`() {
        value(
            "object Registry { val items = mutableListOf<String>() }\nenum class Color { RED, GREEN }\n" +
                "interface Shape { fun area(): Double }\ntypealias Num = Int\nval (left, right) = 1 to \"r\"",
        )
        assertEquals(
            "GREEN 1.0 [x] 3 1r",
            value(
                "fun register(s: String) = Registry.items.add(s)\nfun favourite() = Color.GREEN\n" +
                    "fun unit() = object : Shape { override fun area() = 1.0 }\nfun three() = 3 as Num\nfun both() = \"\$left\$right\"\n" +
                    "register(\"x\")\n\"\${favourite()} \${unit().area()} \${Registry.items} \${three()} \${both()}\"",
            ),
        )
    }

    @Test
    fun `a var of an earlier snippet is changed`() {
        value("var counter = 0")
        assertEquals(2, value("fun bump() = ++counter\nbump()\nbump()"))
        assertEquals(2, value("counter"))
    }

    @Test
    fun `the newest declaration of an earlier snippet wins`() {
        value("fun scale(a: Int) = a * 10\nval unitName = 1\nclass Tag { override fun toString() = \"old\" }")
        value("fun scale(a: Int) = a * 100\nval unitName = \"one\"\nclass Tag { override fun toString() = \"new\" }")
        assertEquals(
            "300 3 new",
            value(
                "fun scaled() = scale(3)\nfun unitLength() = unitName.length\nfun tag() = Tag()\n\"\${scaled()} \${unitLength()} \${tag()}\"",
            ),
        )
        // overloads of several snippets: the newest one that applies
        value("fun helper(s: String) = s.length")
        assertEquals(1003, value("fun useInt() = scale(10)\nfun useString() = helper(\"abc\")\nuseInt() + useString()"))
        // this snippet's own declaration wins over an earlier one
        assertEquals(5, value("fun scale(a: Int) = a + 3\nfun own() = scale(2)\nown()"))
    }

    @Test
    fun `a failed snippet declares nothing, also for declarations of inferred type`() {
        val failed = runBlocking { session.execute("fun lost(a: Int) = a * 2\nval broken: Int = \"x\"") }
        failed.assertError(ExecutionPhase.COMPILATION)
        val message = runBlocking { session.execute("fun usesLost(a: Int) = lost(a)\nusesLost(1)") }
            .assertError(ExecutionPhase.COMPILATION).message
        assertEquals(
            "snippet${session.lastSnippetNumber}.kts:1:24: error: Unresolved reference 'lost'.\n" +
                "  | fun usesLost(a: Int) = <error>lost</error>(a)",
            message,
        )
    }
}
