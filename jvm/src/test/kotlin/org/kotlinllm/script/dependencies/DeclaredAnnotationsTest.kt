package org.kotlinllm.script.dependencies

import org.kotlinllm.script.dependencies.model.MavenCoordinates
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.internal.compiler.source.DependencyAnnotations
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertTrue

class DeclaredAnnotationsTest {
    @Test
    fun `reads values and the ranges of whole entries`() {
        val declared = DependencyAnnotations.read(
            Snippets.parse(
                """
                @file:Repository("https://example.org/m2/")
                @file:DependsOn("com.example:app:1.0")
                println("x")
                """.trimIndent(),
            ),
        )
        assertEquals(listOf(DeclaredValue("https://example.org/m2/", SourceRange(1, 1, 1, 44))), declared.repositories)
        assertEquals(listOf(DeclaredValue("com.example:app:1.0", SourceRange(2, 1, 2, 39))), declared.dependencies)
        assertTrue(declared.problems.isEmpty())
    }

    @Test
    fun `marks each argument of a vararg entry, and reports templates and options`() {
        val declared = DependencyAnnotations.read(
            Snippets.parse(
                "@file:DependsOn(\"a:b:1\", \"c:d\")\n" +
                    "@file:DependsOn(\"a:\${'$'}x:1\")\n" +
                    "@file:DependsOn(\"e:f:2\", options = [\"transitive=false\"])\n",
            ),
        )
        assertEquals(
            listOf(
                DeclaredValue("a:b:1", SourceRange(1, 17, 1, 24)),
                DeclaredValue("c:d", SourceRange(1, 26, 1, 31)),
                DeclaredValue("e:f:2", SourceRange(3, 1, 3, 57)),
            ),
            declared.dependencies,
        )
        assertEquals(
            listOf(
                DeclarationProblem("DependsOn", SourceRange(2, 1, 2, 31), isError = true),
                DeclarationProblem("DependsOn", SourceRange(3, 1, 3, 57), isError = false),
            ),
            declared.problems,
        )
    }

    @Test
    fun `no annotations, nothing declared`() {
        assertTrue(DependencyAnnotations.read(Snippets.parse("@file:Suppress(\"x\")\nval x = 1")).isEmpty)
    }

    @Test
    fun `coordinates forms`() {
        assertEquals(MavenCoordinates("g", "a", null), MavenCoordinates.parse("g:a"))
        assertEquals(MavenCoordinates("g", "a", "[1.0,)"), MavenCoordinates.parse("g:a:[1.0,)"))
        assertEquals("g:a:jar:jdk8:1.0", MavenCoordinates.parse("g:a:jar:jdk8:1.0").toString())
        assertNull(MavenCoordinates.parse("greeter"))
        assertNull(MavenCoordinates.parse("g::1.0"))
        assertNull(MavenCoordinates.parse("g:a b:1.0"))
        assertNull(MavenCoordinates.parse("a:b:c:d:e:f"))
    }
}
