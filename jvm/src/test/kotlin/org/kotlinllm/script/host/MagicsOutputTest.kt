package org.kotlinllm.script.host

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.dependencies.Fixtures
import org.kotlinllm.script.dependencies.RepositoryServer
import java.io.File
import java.net.URLClassLoader
import java.nio.file.Files
import kotlin.test.assertEquals
import kotlin.test.assertNotNull

/**
 * What JetBrains' magics print or write as the later snippets of a host session run: `%trackExecution`'s code,
 * `%trackClasspath`'s jars, `%dumpClassesForSpark`'s class files; a check turns none on.
 */
@Timeout(180)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MagicsOutputTest {

    private val server = RepositoryServer(Fixtures.root)
    private val localRepository = Files.createTempDirectory("magics-repo")
    private val session = HostSession.create(
        emptyMap(),
        HostSettings(localRepository = localRepository.toString(), repositories = listOf(server.url("repo1/"))),
    )
    private val events = EventReader(session)

    @AfterAll
    fun close() {
        session.close()
        server.close()
        localRepository.toFile().deleteRecursively()
    }

    /** Runs [code] as the next snippet: its outcome, and what it printed on stdout. */
    private fun run(code: String): Pair<HostOutcome, String> {
        val number = session.submit(code).snippetNumber
        val outcome = events.settled(number)
        val stdout = events.events.filterIsInstance<OutputEvent>().filter { it.snippetNumber == number && it.stream == OutputEvent.STDOUT }
        return outcome to stdout.joinToString("") { it.text }
    }

    @Test
    fun `trackExecution shows each cell's code as compiled, its own first, until it is turned off`() {
        val (first, shown) = run("%trackExecution\nval tracked = 20\n\nprintln(tracked)")
        first.result.assertValue()
        assertEquals("Executing:\n\nval tracked = 20\n\nprintln(tracked)\n20\n", shown)
        assertEquals("Executing:\n\"%use in a string\"\n", run("\"%use in a string\"").second)
        assertEquals("Executing:\ntracked * 2\n", run("tracked * 2").second)
        assertEquals("", run("%trackExecution -generated\ntracked").second, "a cell's own code is not generated code")
        assertEquals("", run("%trackExecution off\ntracked").second)
        assertEquals("", run("tracked").second)
    }

    @Test
    fun `a check of a magic or a command turns nothing on`() {
        val checked = session.check("%trackExecution\n%dumpClassesForSpark\n1")
        assertEquals(emptyList(), checked.warnings)
        assertEquals(true, session.check(":help").isUnit)
        assertEquals("", run("val checkedOnly = 1").second)
    }

    @Test
    fun `trackClasspath lists the jars a cell adds, and the classpath's size`() {
        run("%trackClasspath on").first.result.assertValue()
        val (outcome, shown) = run("@file:DependsOn(\"com.example:util:1.0\")\ncom.example.util.Util.twice(\"ab\")")
        assertEquals("abab", outcome.value)
        val jar = localRepository.resolve("com/example/util/1.0/util-1.0.jar").toFile()
        val size = (System.getProperty("java.class.path").split(File.pathSeparator).filter { it.isNotEmpty() }.map(::File) + jar)
            .distinct().size
        assertEquals("1 new paths were added to classpath:\n${jar.path}\nCurrent classpath size: $size\n", shown)
        assertEquals("", run("1 + 1").second, "a cell adding nothing lists nothing")
        assertEquals(
            "Current classpath ($size paths):\n",
            (run(":classpath").first.value as String).lines().first() + "\n",
        )
        assertEquals(jar.path, (run(":classpath").first.value as String).lines().last())
        run("%trackClasspath off")
    }

    @Test
    fun `dumpClassesForSpark writes the later cells' classes where its property says, loadable from there`() {
        run("%dumpClassesForSpark").first.result.assertValue()
        val directory = File(assertNotNull(System.getProperty("spark.repl.class.outputDir")))
        val (outcome, _) = run("class SparkRow(val x: Int) { fun twice() = 2 * x }\nSparkRow(21).twice()")
        assertEquals(42, outcome.value)
        val written = directory.walk().filter { it.isFile }.map { it.relativeTo(directory).path }.sorted().toList()
        val row = assertNotNull(written.singleOrNull { it.endsWith("\$SparkRow.class") }, "written: $written")
        URLClassLoader(arrayOf(directory.toURI().toURL()), javaClass.classLoader).use { loader ->
            val loaded = loader.loadClass(row.removeSuffix(".class").replace(File.separatorChar, '.'))
            assertEquals(42, loaded.getMethod("twice").invoke(loaded.getConstructor(Int::class.java).newInstance(21)))
        }
        run("%dumpClassesForSpark off").first.result.assertValue()
        val before = directory.walk().count()
        run("class NotWritten")
        assertEquals(before, directory.walk().count(), "off: nothing more is written")
    }
}
