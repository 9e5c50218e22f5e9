package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** A snippet that declares nothing leaves no compiler data behind; one that declares stays usable. */
class MemoryTest {

    private fun liveHeap(): Long {
        repeat(3) {
            System.gc()
            Thread.sleep(50)
        }
        val runtime = Runtime.getRuntime()
        return runtime.totalMemory() - runtime.freeMemory()
    }

    @Test
    fun `a hundred snippets that declare nothing keep next to no memory`() = runBlocking {
        ScriptSession().use { session ->
            session.execute("import kotlin.math.sqrt\nval kept = 1").assertValue()
            repeat(10) { session.execute("1 + $it").assertValue() }
            val before = liveHeap()
            repeat(100) { session.execute("kept + $it").assertValue() }
            val grown = liveHeap() - before
            // each kept its whole compiler session (~0.5 MB) before; a generous bound that catches that coming back
            assertTrue(grown < 25L shl 20, "the live heap grew by ${grown shr 20} MB over 100 snippets")
            assertEquals(4.0, session.execute("fun root(): Double = sqrt(kept * 16.0)\nroot()").assertValue().value)
        }
    }
}
