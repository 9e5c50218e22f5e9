package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.kotlinllm.script.completion.CompletionItem
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** Completion and inspection by static type, from the K2 frontend's resolution of the session and the cell. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompletionTest {

    private val session = ScriptSession { "greeting" provides "Hello" }

    init {
        runBlocking {
            session.execute(
                "val shoppingList = mutableListOf(\"milk\")\n" +
                    "/** Shouts [text]. */\nfun shout(text: String): String = text.uppercase()\n" +
                    "object Shop { fun open() = true }",
            ).assertValue()
        }
    }

    @AfterAll
    fun close() = session.close()

    private fun items(code: String, cursor: Int = code.length): List<CompletionItem> = session.complete(code, cursor).items

    @Test
    fun `names declared in the session complete first, then keywords and scope functions`() {
        val completion = session.complete("sh", 2)
        assertEquals(0, completion.start)
        assertEquals(2, completion.end)
        assertEquals(listOf("shoppingList", "shout"), completion.matches.take(2))
        assertEquals("greeting", session.complete("val x = gre", 11).matches.first())
        assertTrue("await" in session.complete("aw", 2).matches)
        assertTrue("while" in session.complete("whi", 3).matches)
    }

    @Test
    fun `members and extensions of the static type complete after a dot, with kinds and signatures`() {
        val completion = session.complete("shoppingList.ad", 15)
        assertEquals(13, completion.start)
        assertTrue("add" in completion.matches && "addAll" in completion.matches, completion.matches.toString())
        assertTrue("open" in session.complete("Shop.o", 6).matches)
        val map = items("listOf(1).ma")
        assertEquals(listOf("map", "mapIndexed", "mapIndexedNotNull"), map.take(3).map { it.text })
        assertEquals("function", map.first().type)
        assertEquals("inline fun <T, R> Iterable<T>.map(transform: (T) -> R): List<R>", map.first().signature)
        val list = items("listOf(1, 2).").map { it.text }
        assertTrue(listOf("size", "map", "filter", "joinToString").all { it in list }, list.toString())
        assertTrue(listOf("add", "clear", "set", "sort").none { it in list }, list.toString())
    }

    @Test
    fun `a probe changes nothing of the session`() = runBlocking {
        val before = session.lastSnippetNumber
        repeat(20) {
            session.complete("val onlyInCompletion = 1\nonlyIn", 30)
            session.inspect("val onlyInCompletion = 1\nonlyInCompletion", 27)
        }
        assertEquals(before, session.lastSnippetNumber)
        val error = session.execute("onlyInCompletion").assertError(ExecutionPhase.COMPILATION)
        assertTrue("Unresolved reference 'onlyInCompletion'" in error.message, error.message)
        assertEquals("MILK", session.execute("shout(shoppingList.first())").assertValue().value)
    }

    @Test
    fun `completion answers while a snippet runs`() {
        // the snippet runs until the completion has answered: a completion waiting for it would time out
        val running = session.executeAsync(
            "org.kotlinllm.script.CompletionTest.running.countDown()\norg.kotlinllm.script.CompletionTest.release.await()\n1",
        )
        try {
            assertTrue(Companion.running.await(60, TimeUnit.SECONDS), "the snippet did not start")
            val items = CompletableFuture.supplyAsync { items("shoppingList.fi") }.get(60, TimeUnit.SECONDS)
            assertFalse(running.isDone)
            assertTrue(items.any { it.text == "first" }, items.toString())
        } finally {
            release.countDown()
            running.get(60, TimeUnit.SECONDS)
        }
    }

    @Test
    fun `inspection shows the declaration, where it is declared, its KDoc and the current value`() {
        assertEquals("fun shout(text: String): String\n\ndeclared in snippet1.kts\n\nShouts [text].", session.inspect("shout(\"a\")", 2))
        assertEquals(
            "val shoppingList: MutableList<String>\n\ndeclared in snippet1.kts\n\nvalue: java.util.ArrayList = [milk]",
            session.inspect("shoppingList.size", 4),
        )
        assertEquals("val size: Int\n\nmember of kotlin.collections.MutableList", session.inspect("shoppingList.size", 15))
        assertEquals(PRINTLN, session.inspect("println(1)", 3))
        // Shift+Tab just inside the parentheses inspects the function called
        assertTrue(session.inspect("println()", 8).orEmpty().startsWith("inline fun println()\n\nin kotlin.io"))
        assertNull(session.inspect("unknownName", 3))
        // a cell with Windows line ends: the offset counts both characters of each
        assertEquals(
            "val size: Int\n\nmember of kotlin.collections.MutableList",
            session.inspect("\r\n".repeat(6) + "shoppingList.size", 26),
        )
    }

    @Test
    fun `inspection inside an unfinished call lists every overload`() {
        val overloads = listOf("Any?", "Int", "Long", "Byte", "Short", "Char", "Boolean", "Float", "Double", "CharArray")
            .joinToString("\n") { "inline fun println(message: $it)" }
        assertEquals(
            "$overloads\ninline fun println()\n\nin kotlin.io\n\n" +
                "Prints the given [message] and the line separator to the standard output stream.",
            session.inspect("println(", 8),
        )
        // past 16 overloads, how many more there are (maxOf has 36 in the pinned standard library)
        val maxOf = session.inspect("maxOf(", 6).orEmpty()
        val listed = maxOf.substringBefore("\n\n").lines()
        assertEquals(17, listed.size, maxOf)
        assertTrue(listed.take(16).all { " maxOf(" in it } && "fun <T : Comparable<T>> maxOf(a: T, b: T): T" in listed, maxOf)
        assertEquals("… and 20 more overloads", listed.last())
        assertTrue(maxOf.startsWith(listed.joinToString("\n") + "\n\nin kotlin.comparisons\n\n"), maxOf)
    }

    @Test
    fun `inspection shows the KDoc of the standard library, from its sources bundled beside the engine`() {
        val map = session.inspect("listOf(1).map { it }", 11).orEmpty()
        assertTrue(
            map.startsWith(
                "inline fun <T, R> Iterable<T>.map(transform: (T) -> R): List<R>\n\ntype: List<Int>\n\nin kotlin.collections\n\n",
            ),
            map,
        )
        assertTrue("Returns a list containing the results of applying the given [transform] function" in map, map)
    }

    @Test
    fun `a provided property is inspected as its declaration, not as the prelude's getter`() {
        val text = session.inspect("greeting", 3).orEmpty()
        assertTrue(text.startsWith("val greeting: String"), text)
    }

    companion object {
        /** `println(1)` inspected: the overload the call picks, its package and its KDoc from the bundled sources. */
        const val PRINTLN = "inline fun println(message: Int)\n\nin kotlin.io\n\n" +
            "Prints the given [message] and the line separator to the standard output stream."

        /** Counted down by the snippet of `completion answers while a snippet runs` once it runs. */
        @JvmField
        val running = CountDownLatch(1)

        /** Counted down by that test once its completion has answered, to let the snippet end. */
        @JvmField
        val release = CountDownLatch(1)
    }
}
