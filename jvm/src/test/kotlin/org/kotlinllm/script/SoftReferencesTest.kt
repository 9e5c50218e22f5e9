package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.concurrent.thread
import kotlin.test.assertEquals

/**
 * Run with `-XX:SoftRefLRUPolicyMSPerMB=0` (its own surefire execution): every collection clears the soft
 * references not used since the one before, as a nearly full heap does. The compiler keeps a snippet's syntax tree,
 * where it marks the script as a REPL snippet, only softly; the session must hold it while compiling. Full
 * collections run back to back on another thread meanwhile, so that some fall inside every compilation.
 */
@Timeout(300)
class SoftReferencesTest {

    @Test
    fun `snippets compile and run while every collection clears soft references`() = runBlocking {
        val collecting = AtomicBoolean(true)
        val collector = thread(name = "collections", isDaemon = true) {
            while (collecting.get()) {
                System.gc()
                Thread.sleep(20)
            }
        }
        try {
            runSnippets()
        } finally {
            collecting.set(false)
            collector.join()
        }
    }

    private suspend fun runSnippets() {
        ScriptSession().use { session ->
            val expected = listOf(
                "val a = 1" to Unit,
                "a + 1" to 2,
                "fun f() = a * 10" to Unit,
                "System.gc(); f()" to 10,
                "class C(val x: Int) { fun twice() = x * 2 }" to Unit,
                "val garbage = List(200_000) { it.toString() }.size\nC(21).twice() + garbage - garbage" to 42,
                "listOf(1, 2, 3).map { it * a }" to listOf(1, 2, 3),
            )
            for ((code, value) in expected) assertEquals(value, session.execute(code).assertValue().value, code)
        }
    }
}
