package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import kotlin.test.assertEquals
import kotlin.test.assertNotEquals
import kotlin.test.assertTrue

/** What a session gives back after the heap ran out or the stack overflowed, and what it says then. */
@Timeout(120)
class FaultMemoryTest {

    @Test
    fun `an OutOfMemoryError names the largest values of the session, largest first`() = runBlocking {
        ScriptSession().use { session ->
            session.execute("val big = ArrayList<LongArray>()\nrepeat(3) { big.add(LongArray(1_000_000)) }").assertValue()
            session.execute("val names = Array(400_000) { \"n\" }\nval keep = 42").assertValue()
            val message = session.execute("val huge = LongArray(Int.MAX_VALUE - 8)").assertError(ExecutionPhase.EVALUATION).message
            val limit = Runtime.getRuntime().maxMemory() / (1024 * 1024)
            assertEquals(
                "hint: the heap limit is $limit MB; raise it with the kernel setting max_heap (e.g. --KotlinKernel.max_heap=4g) " +
                    "or the JVM option -Xmx. The largest values of the session: big (ArrayList, ~23 MB), " +
                    "names (Array, ~2 MB). Values of the session keep their memory until released: empty them " +
                    "(e.g. big.clear()) or declare them again (val big = 0)",
                message.lines().last(),
            )
            assertEquals(42, session.execute("keep").assertValue().value)
        }
    }

    @Test
    fun `after a stack overflow the session goes on on a fresh thread, with its state`() = runBlocking {
        ScriptSession().use { session ->
            session.execute("val keep = 42\nval before = Thread.currentThread()\nclass Kept(val x: Int)").assertValue()
            session.execute("fun down(n: Int): Int = down(n + 1) + 1\ndown(0)").assertError(ExecutionPhase.EVALUATION)
            assertEquals(false, session.execute("Thread.currentThread() === before").assertValue().value)
            assertEquals(false, session.execute("before.isAlive").assertValue().value)
            assertEquals(42, session.execute("keep").assertValue().value)
            assertEquals(7, session.execute("Kept(7).x").assertValue().value)
            // deep recursion that ends still has the session's stack
            assertEquals(
                100_000,
                session.execute("fun depth(n: Int): Int = if (n == 0) 0 else depth(n - 1) + 1\ndepth(100_000)").assertValue().value,
            )
            val name = session.execute("Thread.currentThread().name").assertValue().value
            assertTrue(name.toString().startsWith("kotlin-script-session-"), name.toString())
            // the next snippet runs on the same (fresh) thread: it is replaced only after an overflow
            session.execute("val after = Thread.currentThread()").assertValue()
            assertEquals(true, session.execute("Thread.currentThread() === after").assertValue().value)
            assertNotEquals(0, session.execute("kotlinx.coroutines.runBlocking { kotlinx.coroutines.delay(1); 1 }").assertValue().value)
        }
    }
}
