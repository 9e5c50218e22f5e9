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

    /** A default-imported name, and the parameters and arguments of one of its imported overloads (null: a value). */
    private class Imported(val name: String, val parameters: String? = null, val arguments: String? = null)

    /** The names the default imports bring that a user may declare too: kotlin.math's, the coroutines', the runtime's. */
    private val importedNames = listOf(
        Imported("E"),
        Imported("PI"),
        Imported("max", "a: Int, b: Int", "1, 2"),
        Imported("min", "a: Int, b: Int", "1, 2"),
        Imported("abs", "x: Int", "-3"),
        Imported("round", "x: Double", "2.5"),
        Imported("sign", "x: Double", "-2.0"),
        Imported("sqrt", "x: Double", "4.0"),
        Imported("delay", "timeMillis: Long", "1L"),
        Imported("Dispatchers"),
        Imported("GlobalScope"),
        Imported("HTML", "text: String", "\"x\""),
        Imported("Image", "url: String", "\"x\""),
        Imported("vars"),
        Imported("notebook"),
        Imported("coroutineContext"),
        Imported("scriptScope"),
    )

    /** The declaration of [imported]'s name as a [kind] and an expression using it, whose value is 7. */
    private fun declaration(kind: String, imported: Imported): Pair<String, String> {
        val name = imported.name
        val parameters = imported.parameters.orEmpty()
        val properties = parameters.split(", ").filter { it.isNotEmpty() }.joinToString(", ") { "val $it" }
        val call = "$name(${imported.arguments.orEmpty()})"
        return when (kind) {
            "class" -> "class $name($properties) { val v = 7 }" to "$call.v"
            "enum" -> "enum class $name { A, B }" to "$name.B.ordinal + $name.entries.size + 4"
            "object" -> "object $name { val v = 7 }" to "$name.v"
            "function" -> "fun $name($parameters): Int = 7" to call
            else -> "val $name = 7" to name
        }
    }

    /** Each name declared as a [kind] in a cell of its own is the session's there and in every later cell. */
    private fun declaredNamesWin(kind: String) = ScriptSession().use { session ->
        val failures = mutableListOf<String>()
        val uses = importedNames.map { imported ->
            val (declared, use) = declaration(kind, imported)
            val result = session.run("$declared\n$use")
            if ((result as? ScriptResult.Value)?.value != 7) failures += "in the declaring cell: $declared\n$use\n$result"
            use
        }
        for (use in uses) {
            val result = session.run(use)
            if ((result as? ScriptResult.Value)?.value != 7) failures += "in a later cell: $use\n$result"
        }
        assertEquals("", failures.joinToString("\n\n"))
    }

    @Test
    fun `a class the session declares wins over a default import of its name`() = declaredNamesWin("class")

    @Test
    fun `an enum the session declares wins over a default import of its name`() = declaredNamesWin("enum")

    @Test
    fun `an object the session declares wins over a default import of its name`() = declaredNamesWin("object")

    @Test
    fun `a function the session declares wins over a default import of its name`() = declaredNamesWin("function")

    @Test
    fun `a property the session declares wins over a default import of its name`() = declaredNamesWin("val")

    @Test
    fun `beside a session's enum E, kotlin math's E is reached by its full name and PI by its own`() =
        ScriptSession().use { session ->
            val code = "enum class E { A, B }\n\"${'$'}{E.B} ${'$'}{kotlin.math.E} ${'$'}PI\""
            assertEquals("B 2.718281828459045 3.141592653589793", session.run(code).assertValue().value)
            assertEquals("A 2.718281828459045", session.run("\"${'$'}{E.A} ${'$'}{kotlin.math.E}\"").assertValue().value)
        }

    @Test
    fun `an enum E wins in cells with file annotations, imports, internal modifiers and errors of their own`() =
        ScriptSession().use { session ->
            session.run("enum class E { A, B }").assertValue()
            assertEquals(1, session.run("@file:Suppress(\"UNUSED_VARIABLE\")\n\nE.B.ordinal").assertValue().value)
            assertEquals(listOf("B"), session.run("import java.util.ArrayList\nArrayList(listOf(E.B.name))").assertValue().value)
            assertEquals(1, session.run("internal fun e() = E.B\ne().ordinal").assertValue().value)
            val error = session.run("E.C").assertError(ExecutionPhase.COMPILATION)
            assertEquals("snippet5.kts:1:3: error: Unresolved reference 'C'.\n  | E.<error>C</error>", error.message)
        }
}
