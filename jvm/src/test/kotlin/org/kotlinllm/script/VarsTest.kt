package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

/** `vars()`: the session's declarations visible now, with their types as the compiler resolved them. */
class VarsTest {

    private fun ScriptSession.run(code: String): ScriptResult = runBlocking { execute(code) }

    private fun ScriptSession.vars(): String = run("vars()").assertValue().value.toString()

    @Test
    fun `a session's declarations with their declared types and values, the newest of each name`() =
        ScriptSession { "greeting" provides "Hello" }.use { session ->
            assertEquals("val greeting: String", session.vars())
            session.run("val xs = listOf(1, 2, 3)\nvar n = 5").assertValue()
            session.run("val label: CharSequence = \"first\"").assertValue()
            session.run("fun greet(name: String, times: Int = 1): String = name.repeat(times)").assertValue()
            session.run("class P(val x: Int)\nobject O").assertValue()
            session.run("val broken: Int = \"no\"\nfun lost() = 1").assertError(ExecutionPhase.COMPILATION)
            session.run("val label = \"second\"\nn += 1").assertValue()
            assertEquals(
                """
                val greeting: String
                val xs: List<Int> = [1, 2, 3]
                var n: Int = 6
                fun greet(name: String, times: Int = 1): String
                class P
                object O
                val label: String = "second"
                """.trimIndent(),
                session.vars(),
            )
        }

    @Test
    fun `types are written as in Kotlin source, values cut to a line`() = ScriptSession().use { session ->
        assertEquals("no declarations yet", session.vars())
        session.run(
            """
            val maybe: String? = null
            val toText: (Int) -> String = { it.toString() }
            val property = System.getProperty("java.version")
            val entries = mapOf(1 to "a").entries.first()
            val many = (1..1000).toList()
            val text = "line one\nline two"
            val lazyOne by lazy { 42 }
            lateinit var later: String
            suspend fun fetch(vararg ids: Int): List<String> = ids.map { it.toString() }
            fun <T : Comparable<T>> List<T>.top(): T? = maxOrNull()
            fun log(message: String) = println(message)
            typealias Ids = List<Long>
            data class Point(val x: Int, val y: Int)
            val origin = Point(0, 0)
            enum class Color { RED }
            interface Shape
            val array = intArrayOf(1, 2)
            """.trimIndent(),
        ).assertValue()
        assertEquals(
            """
            val maybe: String? = null
            val toText: (Int) -> String
            val property: String! = "${System.getProperty("java.version")}"
            val entries: Map.Entry<Int, String> = 1=a
            val many: List<Int> = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, …]
            val text: String = "line one\nline two"
            val lazyOne: Int
            lateinit var later: String
            suspend fun fetch(vararg ids: Int): List<String>
            fun <T : Comparable<T>> List<T>.top(): T?
            fun log(message: String)
            typealias Ids = List<Long>
            data class Point
            val origin: Point = Point(x=0, y=0)
            enum class Color
            interface Shape
            val array: IntArray = [1, 2]
            """.trimIndent(),
            session.vars(),
        )
    }

    @Test
    fun `a snippet's own declarations above the calling line are listed, with the current values`() = ScriptSession().use { session ->
        session.run("val x = 1\nval y = 10").assertValue()
        val listed = session.run("val x = 2\nfun f() = x\nclass C\nval listed = vars().toString()\nval later = 3\nlisted")
        assertEquals("val y: Int = 10\nval x: Int = 2\nfun f(): Int\nclass C", listed.assertValue().value)
        assertEquals(
            "val y: Int = 10\nval x: Int = 2\nfun f(): Int\nclass C\n" +
                "val listed: String = \"val y: Int = 10\\nval x: Int = 2\\nfun f(): Int\\nclass C\"\nval later: Int = 3",
            session.vars(),
        )
    }

    @Test
    fun `with one session open, code of no session's thread (a shared pool's worker) finds that one`() =
        ScriptSession().use { session ->
            session.run("val shared = 7").assertValue()
            val listed = session.run(
                "java.util.concurrent.ForkJoinPool.commonPool().submit<String> { vars().toString() }.get() + \" | \" + " +
                    "runBlocking(Dispatchers.IO) { vars().toString() }",
            ).assertValue().value
            assertEquals("val shared: Int = 7 | val shared: Int = 7", listed)
        }
}
