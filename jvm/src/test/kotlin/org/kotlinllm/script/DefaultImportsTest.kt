package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

/** What snippets import by default, and that their own declarations and imports win over it. */
class DefaultImportsTest {

    private fun ScriptSession.run(code: String): ScriptResult = runBlocking { execute(code) }

    @Test
    fun `kotlin math needs no import`() = ScriptSession().use { session ->
        assertEquals(19.0, session.run("sqrt(16.0) + max(1, 2) + 2.0.pow(2) + abs(-9)").assertValue().value)
        assertEquals(true, session.run("PI > 3.14 && E > 2.71 && floor(2.5) == 2.0").assertValue().value)
    }

    @Test
    fun `declarations of earlier snippets win over kotlin math`() = ScriptSession().use { session ->
        session.run("fun max(a: Int, b: Int) = 0\nval E = 5").assertValue()
        session.run("val PI = 3").assertValue()
        assertEquals(0, session.run("max(1, 2)").assertValue().value)
        assertEquals(8, session.run("E + PI").assertValue().value)
        assertEquals(0, session.run("fun viaFunction(): Int = max(3, 4)\nviaFunction()").assertValue().value)
        session.run("fun inferred() = max(3, 4)\nclass Holder { fun m() = min(E, PI) }").assertValue()
        assertEquals(listOf(0, 3), session.run("listOf(inferred(), Holder().m())").assertValue().value)
        // a name kotlin.math has and the snippets did not declare still comes from it
        assertEquals(4.0, session.run("sqrt(16.0)").assertValue().value)
    }

    @Test
    fun `declarations of the same snippet win over kotlin math`() = ScriptSession().use { session ->
        assertEquals(
            listOf(0, 5, 3),
            session.run("fun max(a: Int, b: Int) = 0\nval E = 5\nval PI = 3\nlistOf(max(1, 2), E, PI)").assertValue().value,
        )
        assertEquals(listOf(0, 5, 3), session.run("listOf(max(1, 2), E, PI)").assertValue().value)
    }

    @Test
    fun `explicit imports of kotlin math still work`() = ScriptSession().use { session ->
        assertEquals(3, session.run("import kotlin.math.abs\nabs(-3)").assertValue().value)
        assertEquals(2.0, session.run("import kotlin.math.sqrt as root\nroot(4.0)").assertValue().value)
        assertEquals(5, session.run("abs(-5)").assertValue().value)
    }
}
