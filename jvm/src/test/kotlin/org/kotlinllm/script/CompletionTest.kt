package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** Completion and inspection over what the session declared. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompletionTest {

    private val session = ScriptSession { "greeting" provides "Hello" }

    init {
        runBlocking {
            session.execute(
                "val shoppingList = mutableListOf(\"milk\")\nfun shout(text: String): String = text.uppercase()\nobject Shop { fun open() = true }",
            ).assertValue()
        }
    }

    @AfterAll
    fun close() = session.close()

    @Test
    fun `names declared in the session complete first, then keywords and scope functions`() {
        val completion = session.complete("sh", 2)
        assertEquals(0, completion.start)
        assertEquals(2, completion.end)
        assertEquals(listOf("shoppingList", "shout"), completion.matches.take(2))
        assertEquals(listOf("greeting"), session.complete("val x = gre", 11).matches)
        assertTrue("await" in session.complete("aw", 2).matches)
        assertTrue("while" in session.complete("whi", 3).matches)
    }

    @Test
    fun `members of the current value complete after a dot`() {
        val completion = session.complete("shoppingList.ad", 15)
        assertEquals(13, completion.start)
        assertTrue("add" in completion.matches && "addAll" in completion.matches, completion.matches.toString())
        assertTrue("open" in session.complete("Shop.o", 6).matches)
    }

    @Test
    fun `inspection shows the declaration and the current value`() {
        assertEquals("fun shout(text: String): String", session.inspect("shout(\"a\")", 2))
        assertEquals("val shoppingList\n\nvalue: java.util.ArrayList = [milk]", session.inspect("shoppingList.size", 4))
        assertNull(session.inspect("unknownName", 3))
    }

    @Test
    fun `a provided property is inspected as its declaration, not as the prelude's getter`() {
        assertEquals("val greeting: kotlin.String", session.inspect("greeting", 3))
    }
}
