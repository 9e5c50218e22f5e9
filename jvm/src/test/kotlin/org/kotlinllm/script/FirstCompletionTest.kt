package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** A completion or inspection asked right after a session's construction, before its compiler is up, waits for it. */
class FirstCompletionTest {

    @Test
    fun `a completion asked at once waits for the compiler and completes by type`() {
        ScriptSession().use { session ->
            val completion = session.complete("\"abc\".", 6)
            assertTrue(completion.byType, "names only: ${completion.fallback}")
            assertNull(completion.fallback)
            assertTrue(completion.waitedMillis > 0, "it did not wait for the compiler's start")
            assertTrue(listOf("length", "uppercase").all { it in completion.matches }, completion.matches.toString())
            // the warm-up queued behind the start leaves snippets and later completions as they were
            runBlocking { assertEquals(2, (session.execute("1 + 1") as ScriptResult.Value).value) }
            val again = session.complete("listOf(1).ma", 12)
            assertEquals(listOf("map", "mapIndexed", "mapIndexedNotNull"), again.matches.take(3))
            assertEquals(0, again.waitedMillis)
        }
    }

    @Test
    fun `an inspection asked at once waits for the compiler and finds the declaration by type`() {
        ScriptSession().use { session ->
            val inspection = session.inspection("\"abc\".length", 8)
            assertTrue(inspection.byType, "names only: ${inspection.fallback}")
            assertTrue(inspection.waitedMillis > 0, "it did not wait for the compiler's start")
            assertTrue(inspection.text.orEmpty().startsWith("val length: Int"), inspection.text)
        }
    }
}
