package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

/**
 * A declaration whose type is inferred sees the earlier snippets' declarations also when the same snippet uses it,
 * as in a Kotlin file (the K2 REPL compiler alone left them unresolved there).
 */
class InferredTypesTest {

    private fun last(vararg snippets: String): Any? = ScriptSession().use { session ->
        snippets.map { code -> runBlocking { session.execute(code) }.assertValue().value }.last()
    }

    @Test
    fun `a function of inferred type calls an earlier function, used in its own snippet`() {
        assertEquals(6, last("fun mul(a: Int, b: Int) = a * b", "fun f(a: Int) = mul(a, 2)\nf(3)"))
        assertEquals(6, last("fun mul(a: Int, b: Int) = a * b", "fun f(a: Int) = mul(a, 2)\nval r: Int = f(3)\nr"))
        assertEquals(6, last("fun mul(a: Int, b: Int) = a * b", "val r = f(3)\nfun f(a: Int) = mul(a, 2)\nr"))
    }

    @Test
    fun `a function of inferred type needed by an earlier declaration of the same snippet`() {
        assertEquals(6, last("fun mul(a: Int, b: Int) = a * b", "fun g() = f(3)\nfun f(a: Int) = mul(a, 2)\ng()"))
    }

    @Test
    fun `classes, properties, extensions and generic functions of earlier snippets`() {
        assertEquals(false, last("class Plain", "fun isPlain(x: Any) = x is Plain\nisPlain(1)"))
        assertEquals(6, last("val earlierVal = 5", "fun usesVal() = earlierVal + 1\nusesVal()"))
        assertEquals(20, last("fun base() = 10", "val twice get() = base() * 2\ntwice"))
        assertEquals(10, last("fun Int.sq() = this * this", "fun g(x: Int) = x.sq() + 1\ng(3)"))
        assertEquals(listOf("a", "a"), last("fun <T> pair(x: T) = listOf(x, x)", "fun g() = pair(\"a\")\ng()"))
        assertEquals(3, last("val (da, db) = 1 to 2", "fun f() = da + db\nf()"))
        assertEquals(1, last("fun `my helper`() = 1", "fun f() = `my helper`()\nf()"))
        assertEquals("hi Ann", last("val who = \"Ann\"", "fun hi() = \"hi \$who\"\nhi()"))
    }

    @Test
    fun `declarations returning earlier classes and lambdas`() {
        assertEquals(3, last("class Box(val v: Int)", "fun mk() = Box(3)\nmk().v"))
        assertEquals(7, last("fun adder(n: Int) = { x: Int -> x + n }", "fun g() = adder(2)\ng()(5)"))
        assertEquals("RED", last("enum class Color { RED }", "fun c() = Color.RED\nc().name"))
        assertEquals(4, last("object Cfg { val n = 4 }", "fun n() = Cfg.n\nn()"))
    }

    @Test
    fun `members of a class declared in the snippet using it`() {
        assertEquals(1, last("val earlier = 1", "class W { val p = earlier }\nW().p"))
    }

    @Test
    fun `the newest declaration of a redeclared function is called, and overloads across snippets all resolve`() {
        assertEquals(3, last("fun h() = 1", "fun h() = 2", "fun h() = 3", "fun g() = h()\ng()"))
        assertEquals(2, last("fun helper() = 1", "fun helper() = 2\nfun g() = helper()\ng()"))
        assertEquals("intstr", last("fun o(x: Int) = \"int\"", "fun o(x: String) = \"str\"", "fun g() = o(1) + o(\"a\")\ng()"))
    }

    @Test
    fun `an earlier declaration wins over a default-imported one of the same name inside them`() {
        assertEquals(0, last("fun max(a: Int, b: Int) = 0", "fun f1() = max(3, 4)\nf1()"))
        assertEquals(0, last("fun max(a: Int, b: Int) = 0", "class C { fun m() = max(3, 4) }\nC().m()"))
        assertEquals(5, last("val PI = 5", "fun p() = PI\np()"))
    }

    @Test
    fun `operator functions of earlier snippets, called by their operators`() {
        assertEquals(
            3,
            last("class Ex(val a: Int)", "operator fun Ex.plus(o: Ex) = Ex(a + o.a)", "fun add(x: Ex, y: Ex) = x + y\nadd(Ex(1), Ex(2)).a"),
        )
        assertEquals(
            listOf(1, 2, 3),
            last("class Ex(val a: Int)", "operator fun Ex.rangeTo(o: Ex) = (a..o.a).toList()", "fun r() = Ex(1)..Ex(3)\nr()"),
        )
    }

    @Test
    fun `a var of an earlier snippet is read and written`() {
        assertEquals(2, last("var counter = 0", "fun inc() = ++counter\ninc()\ninc()"))
    }

    @Test
    fun `a provided property is seen by a function of inferred type`() {
        ScriptSession(listOf(property("greeting", "Hello"))).use { session ->
            val value = runBlocking { session.execute("fun useGreeting() = \"\$greeting!\"\nuseGreeting()") }.assertValue().value
            assertEquals("Hello!", value)
        }
    }
}
