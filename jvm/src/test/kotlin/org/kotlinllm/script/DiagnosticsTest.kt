package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals

/** Compile errors and warnings in the form `snippetN.kts:line:col: severity: message` with the fragment marked. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DiagnosticsTest {

    private val session = ScriptSession()
    private var number = 0

    @AfterAll
    fun close() = session.close()

    /** Runs [code] and returns its compile error, the placeholder `N` in [expected] standing for its snippet number. */
    private fun assertCompileError(code: String, expected: String) {
        val error = runBlocking { session.execute(code) }.assertError(ExecutionPhase.COMPILATION)
        number = session.lastSnippetNumber
        assertEquals(expected.replace("snippetN.kts", "snippet$number.kts"), error.message)
    }

    @Test
    fun `tabs keep their place and count as one column`() = assertCompileError(
        "\tval\tx = \tnope",
        "snippetN.kts:1:11: error: Unresolved reference 'nope'.\n  | \tval\tx = \t<error>nope</error>",
    )

    @Test
    fun `CRLF line ends are lines like LF`() = assertCompileError(
        "val first = 1\r\nval second = first + nope\r\n",
        "snippetN.kts:2:22: error: Unresolved reference 'nope'.\n  | val second = first + <error>nope</error>",
    )

    @Test
    fun `non-ASCII characters count in UTF-16 units`() = assertCompileError(
        "val emoji = \"é😀\" + nope",
        "snippetN.kts:1:21: error: Unresolved reference 'nope'.\n  | val emoji = \"é😀\" + <error>nope</error>",
    )

    @Test
    fun `a fragment at the end of a line or of the file`() = assertCompileError(
        "fun g(): Int = 1\nfun h(): Int = g(",
        "snippetN.kts:2:18: error: Syntax error: Expecting an argument.\n  | fun h(): Int = g(<error></error>",
    )

    @Test
    fun `syntax errors at the end of a snippet are reported, never run or crash`() {
        assertCompileError("val s = \"abc", "snippetN.kts:1:13: error: Syntax error: Expecting '\"'.\n  | val s = \"abc<error></error>")
        assertCompileError("1 +", "snippetN.kts:1:4: error: Syntax error: Expecting an element.\n  | 1 +<error></error>")
        assertCompileError("if (true) {", "snippetN.kts:1:12: error: Syntax error: Expecting '}'.\n  | if (true) {<error></error>")
    }

    @Test
    fun `a fragment spanning lines marks each of its lines`() = assertCompileError(
        "fun takesInt(x: Int) = x\ntakesInt(\"a\" +\n  \"b\")",
        "snippetN.kts:2:10: error: Argument type mismatch: actual type is 'String', but 'Int' was expected.\n" +
            "  | takesInt(<error>\"a\" +\n  |   \"b\"</error>)",
    )

    @Test
    fun `source containing error tags is marked at the right place`() = assertCompileError(
        "val tagged = \"<error>\" + nope",
        "snippetN.kts:1:26: error: Unresolved reference 'nope'.\n  | val tagged = \"<error>\" + <error>nope</error>",
    )

    @Test
    fun `several diagnostics are separated by one blank line, in source order`() = assertCompileError(
        "val a: Int = \"text\"\nval b = missing",
        "snippetN.kts:1:12: error: Initializer type mismatch: expected 'Int', actual 'String'.\n" +
            "  | val a: Int <error>=</error> \"text\"\n\n" +
            "snippetN.kts:2:9: error: Unresolved reference 'missing'.\n  | val b = <error>missing</error>",
    )

    @Test
    fun `classes of snippets are named as declared in messages`() {
        runBlocking { session.execute("enum class Shade { LIGHT, DARK }") }.assertValue()
        assertCompileError(
            "fun shadeValue(s: Shade): Int = when (s) { Shade.LIGHT -> 1 }",
            "snippetN.kts:1:33: error: 'when' expression must be exhaustive. Add the 'DARK' branch or an 'else' branch.\n" +
                "  | fun shadeValue(s: Shade): Int = <error>when</error> (s) { Shade.LIGHT -> 1 }",
        )
        assertCompileError(
            "val n: Int = Shade.DARK",
            "snippetN.kts:1:12: error: Initializer type mismatch: expected 'Int', actual 'Shade'.\n  | val n: Int <error>=</error> Shade.DARK",
        )
    }

    @Test
    fun `an internal failure of the compiler becomes a located error with its cause in one line`() {
        runBlocking { session.execute("object Limits { const val MAX = 3 }") }.assertValue()
        assertCompileError(
            "Limits.MAX",
            "snippetN.kts:1:8: error: The Kotlin compiler failed internally " +
                "(InterpreterMethodNotFoundError: Unknown function: MAX(Limits))\n" +
                "  | Limits.<error>MAX</error>\n" +
                "hint: a known bug of the K2 REPL compiler: the const val 'MAX' of an earlier snippet cannot be used here; " +
                "declare it again without 'const'",
        )
    }

    @Test
    fun `warnings of a successful snippet are in its value`() {
        val value = runBlocking { session.execute("val w: String = \"a\"\nw!!.length") }.assertValue()
        val n = session.lastSnippetNumber
        assertEquals(1, value.value)
        assertEquals(
            listOf(
                "snippet$n.kts:2:2: warning: Unnecessary non-null assertion (!!) on a non-null receiver of type 'String'.\n" +
                    "  | w<error>!!</error>.length",
            ),
            value.warnings,
        )
    }

    @Test
    fun `warnings follow a runtime error`() {
        val error = runBlocking {
            session.execute("val numbers = listOf(1, 2)\nnumbers.map { it / 0 }")
        }.assertError(ExecutionPhase.EVALUATION)
        val n = session.lastSnippetNumber
        assertEquals(
            "java.lang.ArithmeticException: / by zero\n" +
                "  at <snippet body>(snippet$n.kts:2)\n" +
                "  | numbers.map { it / 0 }\n\n" +
                "snippet$n.kts:2:15: warning: Division by zero.\n" +
                "  | numbers.map { <error>it / 0</error> }",
            error.message,
        )
    }
}
