package org.kotlinllm.script.host

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.TestMethodOrder
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.ExecutionPhase
import org.kotlinllm.script.ScriptResult
import org.kotlinllm.script.assertError
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.testLibraries
import java.nio.file.Files
import java.nio.file.Path
import kotlin.io.path.isRegularFile
import kotlin.test.assertEquals
import kotlin.test.fail

/**
 * DataFrame's column accessors after the cells that declare or change a frame, and after `@DataSchema` types, on the
 * real `dataframe-core` that scripts/setup.sh fetched (see [LibraryRenderingTest]), loaded by a plain
 * `@file:DependsOn`. The hidden snippets that declare them take no snippet number and print nothing.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class DataFrameAccessorsTest {

    private val libraries = LibrarySession("dataframe-accessors", JAR)
    private val session: HostSession get() = libraries.session

    @AfterAll
    fun close() = libraries.close()

    /** Runs [code] as the next snippet: its number, its result and what it printed on stderr. */
    private fun run(code: String): Triple<Int, ScriptResult, String> {
        val ran = libraries.run(code)
        return Triple(ran.number, ran.outcome.result, ran.stderr)
    }

    /** The text of [code]'s value; it printed nothing on stderr. */
    private fun text(code: String): String {
        val (_, result, stderr) = run(code)
        assertEquals("", stderr, "stderr of: $code")
        return result.assertValue().value.toString()
    }

    private val dataFrame by lazy {
        text(
            "@file:DependsOn(\"$DATAFRAME_CORE\")\nimport org.jetbrains.kotlinx.dataframe.api.*\n" +
                "val df = dataFrameOf(\"name\", \"age\")(\"Alice\", 15, \"Bob\", 20)",
        )
    }

    @Test
    @Order(1)
    fun `a frame declared in a cell has its columns as properties in the next one, the numbering unchanged`() {
        dataFrame
        val declaring = session.lastSnippetNumber
        assertEquals("20", text("df.age.max()"))
        assertEquals("[Bob]", text("df.filter { age > 16 }.name.toList()"))
        val (number, result, _) = run("df.agee")
        assertEquals(declaring + 3, number)
        assertEquals(
            "snippet$number.kts:1:4: error: Unresolved reference 'agee' on receiver of type 'DataFrame<_DataFrameType>'.\n" +
                "  | df.<error>agee</error>\n" +
                // the hints see the accessors too
                "hint: did you mean 'age'?",
            result.assertError(ExecutionPhase.COMPILATION).message,
        )
    }

    @Test
    @Order(2)
    fun `vars lists the user's declarations and DataFrame's integration's, not the hidden snippets' ones`() {
        dataFrame
        val lines = text("vars()").lines()
        assertEquals("val df: DataFrame<*> =     name age…", lines.first())
        // declared by DataFrame's own notebook integration, as in JetBrains' kernel
        assertEquals(listOf("val dataFrameConfig: JupyterConfiguration = "), lines.drop(1).map { it.substringBefore("org.jetbrains") })
    }

    @Test
    @Order(3)
    fun `a var given a frame of another schema has the new columns`() {
        dataFrame
        text("var frame = dataFrameOf(\"a\")(1, 2)")
        assertEquals("[1, 2]", text("frame.a.toList()"))
        text("frame = frame.add(\"b\") { a * 10 }")
        assertEquals("[10, 20]", text("frame.b.toList()"))
        assertEquals("[1]", text("frame.filter { b < 15 }.a.toList()"))
        // a frame of an unrelated schema, though the var's type is now the marker of the first one
        text("frame = dataFrameOf(\"c\")(\"x\")")
        assertEquals("[x]", text("frame.c.toList()"))
    }

    @Test
    @Order(4)
    fun `the columns of a column group are nested properties`() {
        dataFrame
        text("val grouped = df.group { name and age }.into(\"person\")")
        assertEquals("[15, 20]", text("grouped.person.age.toList()"))
        assertEquals("Bob", text("grouped.filter { person.age > 16 }.person.name[0]"))
    }

    @Test
    @Order(5)
    fun `a DataSchema interface declared in a cell types the frames cast to it`() {
        dataFrame
        text(
            "import org.jetbrains.kotlinx.dataframe.annotations.DataSchema\n" +
                "@DataSchema interface Person { val name: String; val age: Int }",
        )
        assertEquals("[Bob]", text("df.cast<Person>().filter { age > 16 }.name.toList()"))
        assertEquals("Alice is 15", text("df.cast<Person>()[0].let { \"\${it.name} is \${it.age}\" }"))
        // a property typed by it keeps that type
        text("val people = df.cast<Person>()")
        assertEquals(
            "Unresolved reference 'nosuch' on receiver of type 'DataFrame<Person>'.",
            run("people.nosuch").second.assertError(ExecutionPhase.COMPILATION).message.substringAfter("error: ").substringBefore("\n"),
        )
    }

    @Test
    @Order(6)
    fun `a frame typed by another class, as toDataFrame types it, has accessors too`() {
        dataFrame
        text("val squares = (1..3).toList().toDataFrame { \"n\" from { it }; \"square\" from { it * it } }")
        assertEquals("[1, 4, 9]", text("squares.square.toList()"))
    }

    @Test
    @Order(7)
    fun `accessors that do not compile leave one line on stderr, the cell's value and the session as they were`() {
        dataFrame
        val (number, result, stderr) = run(
            "private class Secret(val x: Int)\nval secrets = dataFrameOf(\"s\")(Secret(1))\nsecrets.rowsCount()",
        )
        assertEquals("1", result.assertValue().value.toString())
        assertEquals(
            "[kotlin-llm] the column accessors of `secrets` could not be generated: their code does not compile: " +
                "'public' property exposes its 'private-in-class' type argument 'Secret'.\n",
            stderr,
        )
        assertEquals(number, session.lastSnippetNumber)
        assertEquals("1", text("secrets.rowsCount()"))
        assertEquals(
            "Unresolved reference 's' on receiver of type 'DataFrame<*>'.",
            run("secrets.s").second.assertError(ExecutionPhase.COMPILATION).message.substringAfter("error: ").substringBefore("\n"),
        )
        text("val later = dataFrameOf(\"z\")(7)")
        assertEquals("[7]", text("later.z.toList()"))
    }

    private companion object {
        /** Pinned as tests/libraries.py pins it. */
        const val DATAFRAME_CORE = "org.jetbrains.kotlinx:dataframe-core:0.15.0"
        const val JAR = "org/jetbrains/kotlinx/dataframe-core/0.15.0/dataframe-core-0.15.0.jar"
    }
}
