package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

/**
 * A class a snippet declares with the name of a default-imported one (`Iterable`, `List`, `Result`, `Pair`) means
 * the snippet's class in every later snippet, in supertype lists as in types and calls, as in a Kotlin file.
 */
class ShadowingTest {

    private fun values(vararg snippets: String): List<Any?> = ScriptSession().use { session ->
        snippets.map { code -> runBlocking { session.execute(code) }.assertValue().value }
    }

    @Test
    fun `a user Iterable is the supertype of a class declared in a later snippet`() {
        val values = values(
            "interface Iterable<out T> { operator fun iterator(): Iterator<T> }",
            "class MyIterable<T>(val xs: List<T>) : Iterable<T> { override fun iterator() = xs.iterator() }",
            "fun demo(): Iterable<Int> = MyIterable(listOf(1, 2))",
            "var sum = 0\nfor (x in demo()) sum += x\nsum",
            "(MyIterable(listOf(1)) as Any) is kotlin.collections.Iterable<*>",
        )
        assertEquals(listOf(Unit, Unit, Unit, 3, false), values)
    }

    @Test
    fun `a user List, Result and Pair are the supertypes of later classes`() {
        val values = values(
            "interface List<T> { fun first(): T }",
            "open class Result(val code: Int)",
            "abstract class Pair { abstract fun sum(): Int }",
            "class One : List<Int> { override fun first() = 1 }\n" +
                "class Ok : Result(200)\n" +
                "class Two : Pair() { override fun sum() = 2 }",
            "val l: List<Int> = One()\nval r: Result = Ok()\nval p: Pair = Two()\nl.first() + r.code + p.sum()",
        )
        assertEquals(203, values.last())
    }

    @Test
    fun `the newest declaration of a name is the one a later supertype means`() {
        val values = values(
            "interface Pair { fun a(): Int }",
            "interface Pair { fun b(): Int }",
            "class P : Pair { override fun b() = 7 }\nfun q(): Pair = P()\nq().b()",
        )
        assertEquals(7, values.last())
    }

    @Test
    fun `a declaration in the same snippet wins over an earlier one`() {
        val values = values(
            "interface Iterable<out T> { fun one(): T }",
            "interface Iterable<out T> { fun two(): T }\nclass C : Iterable<Int> { override fun two() = 2 }\nC().two()",
            "class D : Iterable<Int> { override fun two() = 3 }\nD().two()",
        )
        assertEquals(listOf(Unit, 2, 3), values)
    }

    @Test
    fun `a type alias shadows the default-imported name in a later supertype`() {
        val values = values("typealias List = ArrayList<Int>", "class M : List()\nM().apply { add(4) }.size")
        assertEquals(1, values.last())
    }

    @Test
    fun `nested classes of a later snippet see the user class as well`() {
        val values = values("abstract class Sequence(val n: Int)", "class Outer { class Inner : Sequence(5) }\nOuter.Inner().n")
        assertEquals(5, values.last())
    }

    @Test
    fun `a snippet's own import of the name still wins in its supertypes`() {
        val values = values(
            "interface Serializable { fun mine(): Int }",
            "import java.io.Serializable as JavaSerializable\nclass S : JavaSerializable\nS() is java.io.Serializable",
            "class T : Serializable { override fun mine() = 1 }\nT().mine()",
        )
        assertEquals(listOf(Unit, true, 1), values)
    }
}
