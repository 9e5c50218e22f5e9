package org.kotlinllm.script.internal.compiler.source

import org.junit.jupiter.api.Test
import org.kotlinllm.script.diagnostics.SourceText
import kotlin.script.experimental.api.ScriptDiagnostic
import kotlin.script.experimental.api.SourceCode
import kotlin.test.assertEquals

/** The positions of a rewritten snippet's diagnostics, mapped back onto the user's text. */
class SnippetRewriteTest {

    private val user = SourceText("val a = 1\ndelay(1); val b = f()\nb")
    private val rewrite = SnippetRewrite(
        user,
        listOf(
            SnippetRewrite.Insertion(10, "wrap { "),
            SnippetRewrite.Insertion(18, " }"),
            SnippetRewrite.Insertion(28, "wrap { "),
            SnippetRewrite.Insertion(31, " }"),
        ),
    )

    private fun at(line: Int, column: Int, endLine: Int, endColumn: Int) = ScriptDiagnostic(
        ScriptDiagnostic.unspecifiedError,
        "message",
        location = SourceCode.Location(SourceCode.Position(line, column), SourceCode.Position(endLine, endColumn)),
    )

    @Test
    fun `the rewritten text has the user's lines`() {
        assertEquals("val a = 1\nwrap { delay(1) }; val b = wrap { f() }\nb", rewrite.text)
    }

    @Test
    fun `positions after insertions move back by them, on their line only`() {
        val rewritten = SourceText(rewrite.text)
        val call = rewrite.text.indexOf("f()")
        val (line, column) = rewritten.position(call)
        assertEquals(
            listOf(at(2, 19, 2, 22), at(1, 5, 1, 6), at(3, 1, 3, 2)),
            rewrite.mapBack(listOf(at(line, column, line, column + 3), at(1, 5, 1, 6), at(3, 1, 3, 2))),
        )
    }

    @Test
    fun `a position inside an insertion is where it was inserted`() {
        // `wrap` of the second insertion, and the end of `f()` inside the closing ` }`
        assertEquals(listOf(at(2, 19, 2, 22)), rewrite.mapBack(listOf(at(2, 28, 2, 38))))
    }

    @Test
    fun `a failed second compilation reports its own diagnostics mapped back unless told otherwise`() {
        assertEquals(listOf(at(1, 5, 1, 6)), rewrite.failed(listOf(at(9, 9, 9, 9)), listOf(at(1, 5, 1, 6))))
    }
}
