package org.kotlinllm.script.internal.libraries

import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

class ScopedCssTest {

    private fun scoped(css: String): List<String> = ScopedCss.scope(css, ".s").lines().map { it.trim() }.filter { it.isNotEmpty() }

    @Test
    fun `every selector of a list gets the scope, and a bare element selector is no longer page-wide`() {
        assertEquals(
            listOf(".s table.dataframe th,", ".s td {padding: 6px;}"),
            scoped("table.dataframe th, td {padding: 6px;}"),
        )
    }

    @Test
    fun `root variables apply to the scope element, a themed root to the scope inside it`() {
        assertEquals(
            listOf(".s {--a: 1;}", ":root[theme=\"dark\"] .s,", ":root [data-jp-theme-light=\"false\"] .s,", ".s .dark {--a: 2;}"),
            scoped(":root {--a: 1;}\n:root[theme=\"dark\"], :root [data-jp-theme-light=\"false\"], .dark {--a: 2;}"),
        )
    }

    @Test
    fun `commas inside parentheses and strings stay in their selector, comments go`() {
        assertEquals(
            listOf(".s a:is(.x, .y),", ".s [title=\"a,b\"] {color: red;}"),
            scoped("/* a, b { } */ a:is(.x, .y), [title=\"a,b\"] {color: red;}"),
        )
    }

    @Test
    fun `media blocks are scoped inside, keyframes kept, and imports dropped`() {
        assertEquals(
            listOf("@media (max-width: 600px) {", ".s td {padding: 0;}", "}", "@keyframes spin {", "from {opacity: 0;} }"),
            scoped(
                "@import url(\"https://example.com/a.css\");\n@media (max-width: 600px) { td {padding: 0;} }\n" +
                    "@keyframes spin { from {opacity: 0;} }",
            ),
        )
    }

    @Test
    fun `an unclosed block is closed at the end of the sheet`() {
        assertEquals(listOf(".s a {color: red;}", ".s b {color: blue;}"), scoped("a {color: red;}\nb {color: blue;"))
    }
}
