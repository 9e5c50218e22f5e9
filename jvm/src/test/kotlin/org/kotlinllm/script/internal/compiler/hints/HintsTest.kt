package org.kotlinllm.script.internal.compiler.hints

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.kotlinllm.script.ExecutionPhase
import org.kotlinllm.script.ScriptSession
import org.kotlinllm.script.assertError
import org.kotlinllm.script.assertValue
import java.nio.file.Files
import kotlin.test.assertEquals

/**
 * Errors an agent can fix in one step: the import to add, the name meant, the dependency to declare, the root cause
 * first. Each suggested fix is applied and the snippet then runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HintsTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun error(code: String): String {
        val message = runBlocking { session.execute(code) }.assertError(ExecutionPhase.COMPILATION).message
        return message.replace("snippet${session.lastSnippetNumber}.kts", "snippetN.kts")
    }

    private fun value(code: String): Any? = runBlocking { session.execute(code) }.assertValue().value

    @Test
    fun `a JDK class gets its import, which then runs`() {
        assertEquals(
            "snippetN.kts:1:9: error: Unresolved reference 'LocalDate'.\n" +
                "  | val d = <error>LocalDate</error>.of(2024, 1, 31)\n" +
                "hint: import java.time.LocalDate",
            error("val d = LocalDate.of(2024, 1, 31)"),
        )
        assertEquals("WEDNESDAY", value("import java.time.LocalDate\nLocalDate.of(2024, 1, 31).dayOfWeek.toString()"))
    }

    @Test
    fun `a type of several packages gets them all, the standard library's first`() {
        assertEquals(
            "snippetN.kts:1:14: error: Unresolved reference 'Duration'.\n" +
                "  | fun twice(x: <error>Duration</error>) = x * 2\n" +
                "hint: import one of kotlin.time.Duration, java.time.Duration, javax.xml.datatype.Duration",
            error("fun twice(x: Duration) = x * 2"),
        )
        assertEquals(
            "2s",
            value(
                "import kotlin.time.Duration\nimport kotlin.time.Duration.Companion.seconds\nfun twice(x: Duration) = x * 2\ntwice(1.seconds).toString()",
            ),
        )
    }

    @Test
    fun `an extension function of the standard library gets its import`() {
        val file = Files.createTempFile("hint", ".txt").also { Files.writeString(it, "read") }
        val path = file.toString().replace("\\", "\\\\")
        assertEquals(
            "snippetN.kts:2:${path.length + 10}: error: Unresolved reference 'readText' on receiver of type 'Path'.\n" +
                "  | Path(\"$path\").<error>readText</error>()\n" +
                "hint: import kotlin.io.path.readText",
            error("import kotlin.io.path.Path\nPath(\"$path\").readText()"),
        )
        assertEquals("read", value("import kotlin.io.path.Path\nimport kotlin.io.path.readText\nPath(\"$path\").readText()"))
        Files.delete(file)
    }

    @Test
    fun `inline-only functions and a class with the member used get their imports`() {
        assertEquals(
            "snippetN.kts:2:14: error: Unresolved reference 'exists' on receiver of type 'Path'.\n" +
                "  | Path(\"/tmp\").<error>exists</error>()\nhint: import kotlin.io.path.exists",
            error("import kotlin.io.path.Path\nPath(\"/tmp\").exists()"),
        )
        // the Duration units, a companion's extensions, are default imports as in JetBrains' kernel
        assertEquals(120L, value("2.minutes.inWholeSeconds"))
        // java.time.Instant has a static now(); kotlin.time.Instant's Companion.now() is deprecated as an error
        assertEquals(
            "snippetN.kts:1:11: error: Unresolved reference 'Instant'.\n  | val now = <error>Instant</error>.now()\n" +
                "hint: import one of java.time.Instant, kotlin.time.Instant",
            error("val now = Instant.now()"),
        )
        assertEquals(true, value("import java.time.Instant\nInstant.now().epochSecond > 0"))
    }

    @Test
    fun `a misspelt name gets the names it most likely meant, from the standard library, a receiver and earlier snippets`() {
        assertEquals(
            "snippetN.kts:1:1: error: Unresolved reference 'printn'.\n  | <error>printn</error>(\"a\")\n" +
                "hint: did you mean one of 'println', 'print'?",
            error("printn(\"a\")"),
        )
        assertEquals(
            "snippetN.kts:1:1: error: Unresolved reference 'mutableListof'.\n  | <error>mutableListof</error>(1)\n" +
                "hint: did you mean 'mutableListOf'?",
            error("mutableListof(1)"),
        )
        assertEquals(
            "snippetN.kts:2:6: error: Unresolved reference 'lenght' on receiver of type 'String'.\n  | word.<error>lenght</error>\n" +
                "hint: did you mean 'length'?",
            error("val word = \"abc\"\nword.lenght"),
        )
        value("val basketTotal = 41")
        assertEquals(
            "snippetN.kts:1:1: error: Unresolved reference 'basketTotl'.\n  | <error>basketTotl</error> + 1\n" +
                "hint: did you mean 'basketTotal'?",
            error("basketTotl + 1"),
        )
        assertEquals(42, value("basketTotal + 1"))
    }

    @Test
    fun `errors that follow from an unresolved call are left out and counted`() {
        assertEquals(
            "snippetN.kts:2:4: error: Unresolved reference 'fitler' on receiver of type 'List<Int>'.\n" +
                "  | xs.<error>fitler</error> { it > 1 }\n" +
                "hint: did you mean 'filter'?\n" +
                "(1 more error follows from this one)",
            error("val xs = listOf(1, 2, 3)\nxs.fitler { it > 1 }"),
        )
        assertEquals(listOf(2, 3), value("val xs = listOf(1, 2, 3)\nxs.filter { it > 1 }"))
    }

    @Test
    fun `a type parameter not inferred because of an error in the lambda follows from that error`() {
        value("data class Town(val name: String, val people: Int)\nval towns = listOf(Town(\"Oslo\", 709), Town(\"Bergen\", 291))")
        assertEquals(
            "snippetN.kts:1:21: error: Unresolved reference 'population' on receiver of type 'Town'.\n" +
                "  | towns.sortedBy { it.<error>population</error> }.first().name\n" +
                "(1 more error follows from this one)",
            error("towns.sortedBy { it.population }.first().name"),
        )
        assertEquals("Bergen", value("towns.sortedBy { it.people }.first().name"))
    }

    @Test
    fun `calling a property as a function gets kotlinc's message, not the default-imported coroutines' invoke`() {
        assertEquals(
            "snippetN.kts:2:3: error: Expression 'length' of type 'Int' cannot be invoked as a function. " +
                "Function 'invoke()' is not found.\n" +
                "  | s.<error>length</error>()\n" +
                "hint: 'length' is a property: drop the parentheses",
            error("val s = \"abc\"\ns.length()"),
        )
        assertEquals(
            "snippetN.kts:1:33: error: Expression 'size' of type 'Int' cannot be invoked as a function. " +
                "Function 'invoke()' is not found.\n" +
                "  | val arr = arrayOf(1, 2, 3); arr.<error>size</error>()\n" +
                "hint: 'size' is a property: drop the parentheses",
            error("val arr = arrayOf(1, 2, 3); arr.size()"),
        )
        assertEquals(3, value("val arr = arrayOf(1, 2, 3); arr.size"), "the failed snippets left nothing behind")
    }

    @Test
    fun `an import of a well-known library that is missing gets the dependency to declare`() {
        assertEquals(
            "snippetN.kts:1:11: error: Unresolved reference 'ktor'.\n  | import io.<error>ktor</error>.client.*\n" +
                "hint: add @file:DependsOn(\"io.ktor:ktor-client-core\")",
            error("import io.ktor.client.*"),
        )
        assertEquals(
            "snippetN.kts:1:1: error: Unresolved reference 'Json'.\n  | <error>Json</error>.encodeToString(listOf(1))\n" +
                "hint: add @file:DependsOn(\"org.jetbrains.kotlinx:kotlinx-serialization-json\") and import kotlinx.serialization.json.Json",
            error("Json.encodeToString(listOf(1))").substringBefore("\n\n"),
        )
    }

    @Test
    fun `the table of well-known libraries finds a package's library only while the package does not resolve`() {
        assertEquals("io.ktor:ktor-client-cio", KnownLibraries.forPackage("io.ktor.client.engine.cio", 1)?.coordinates)
        assertEquals("io.ktor:ktor-client-core", KnownLibraries.forPackage("io.ktor.client.request", 2)?.coordinates)
        assertEquals(null, KnownLibraries.forPackage("io.ktor.client.request", 3), "io.ktor.client resolved: the library is there")
        assertEquals(null, KnownLibraries.forPackage("io.github.other", 1))
    }

    @Test
    fun `spelling ranks a difference of case first, then the fewest edits, ties by the shared end`() {
        assertEquals(listOf("mutableListOf"), Spelling.closest("mutableListof", listOf("mutableListOf", "mutableList", "mutableSetOf")))
        assertEquals(listOf("println", "print"), Spelling.closest("printn", listOf("print", "println", "printf2x")))
        assertEquals(emptyList(), Spelling.closest("zzz", listOf("println")))
    }
}
