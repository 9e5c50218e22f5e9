package org.kotlinllm.script.dependencies

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.ExecutionPhase
import org.kotlinllm.script.ScriptResult
import org.kotlinllm.script.ScriptSession
import org.kotlinllm.script.SessionConfiguration
import org.kotlinllm.script.assertError
import org.kotlinllm.script.assertValue
import java.nio.file.Files
import kotlin.test.assertEquals

/**
 * `%use` through a session, against a repository on 127.0.0.1 that serves stand-ins of the libraries it knows under
 * their real coordinates (one class each, in the packages `%use` imports).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class UseMagicTest {

    private val root = Files.createTempDirectory("use-repository")
    private val server = RepositoryServer(root)
    private val url = server.url("repo/")
    private val localRepository = Files.createTempDirectory("local-repo")
    private val session: ScriptSession

    init {
        TestRepository(root.resolve("repo")).apply {
            for (version in listOf("0.7.0", "0.8.0")) {
                artifact(
                    "org.jetbrains.kotlinx",
                    "kotlinx-datetime",
                    version,
                    mapOf(
                        "kotlinx.datetime.Calendar" to
                            "package kotlinx.datetime; public class Calendar { public static String v() { return \"$version\"; } }",
                    ),
                )
            }
            metadata("org.jetbrains.kotlinx", "kotlinx-datetime", listOf("0.7.0", "0.8.0"))
            artifact(
                "org.jetbrains.lets-plot",
                "lets-plot-kotlin-jvm",
                "4.5.0",
                mapOf(
                    "org.jetbrains.letsPlot.Figures" to
                        "package org.jetbrains.letsPlot; public class Figures { public static String v() { return \"plot\"; } }",
                ),
            )
            metadata("org.jetbrains.lets-plot", "lets-plot-kotlin-jvm", listOf("4.5.0"))
            artifact(
                "org.jetbrains.kotlinx",
                "dataframe",
                "0.15.0",
                mapOf(
                    "org.jetbrains.kotlinx.dataframe.api.Frames" to
                        "package org.jetbrains.kotlinx.dataframe.api; public class Frames { public static String v() { return \"frame\"; } }",
                ),
            )
            artifact(
                "org.jetbrains.kotlinx",
                "kotlinx-serialization-json",
                "1.0",
                mapOf(
                    "kotlinx.serialization.json.JsonThing" to
                        "package kotlinx.serialization.json; public class JsonThing { public static String v() { return \"json\"; } }",
                ),
            )
        }
        session = ScriptSession(configuration = SessionConfiguration(localRepository = localRepository, defaultRepositories = listOf(url)))
    }

    @AfterAll
    fun close() {
        session.close()
        server.close()
        localRepository.toFile().deleteRecursively()
        root.toFile().deleteRecursively()
    }

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    private fun error(code: String): String =
        run(code).assertError(ExecutionPhase.COMPILATION).message.replace("snippet${session.lastSnippetNumber}.kts", "snippetN.kts")

    @Test
    fun `use loads the latest stable version, with the default imports for this cell and the later ones`() {
        val value = run("%use datetime\nCalendar.v()").assertValue()
        assertEquals("0.8.0", value.value)
        assertEquals(mapOf("org.jetbrains.kotlinx:kotlinx-datetime" to "0.8.0"), value.resolvedVersions)
        assertEquals("0.8.0", run("Calendar.v()").assertValue().value)
    }

    @Test
    fun `several libraries per line, with versions as Kotlin notebooks give them, and notices`() {
        val value = run(
            "%useLatestDescriptors\n%use serialization(v=1.0), datetime(0.8.0) // tables\n%use coroutines\nJsonThing.v() + \" \" + Calendar.v()",
        ).assertValue()
        assertEquals("json 0.8.0", value.value)
        assertEquals(
            listOf(
                "snippet${session.lastSnippetNumber}.kts:1:1: warning: `%useLatestDescriptors`: nothing to update, " +
                    "this kernel's list of %use libraries is built in\n  | <error>%useLatestDescriptors</error>",
            ),
            value.warnings,
        )
    }

    @Test
    fun `an unknown library is a located error naming it, the others of its line load, and nothing else of the cell runs`() {
        run("val before = 1").assertValue()
        assertEquals(
            "snippetN.kts:1:17: error: `%use mylib`: unknown library 'mylib'; this kernel's %use knows dataframe, lets-plot, " +
                "kandy, serialization, datetime, ktor-client, coroutines\n" +
                "  | %use lets-plot, <error>mylib</error>\n" +
                "hint: for another library write @file:DependsOn(\"group:artifact:version\") with the Maven coordinates of its " +
                "artifact\n\n" +
                "snippetN.kts:1:6: warning: Resolved 'org.jetbrains.lets-plot:lets-plot-kotlin-jvm' to its latest stable " +
                "version '4.5.0'\n" +
                "  | %use <error>lets-plot</error>, mylib\n\n" +
                "snippetN.kts:1:6: warning: `%use lets-plot` loaded for the next cells; nothing else of this cell ran\n" +
                "  | %use <error>lets-plot</error>, mylib",
            error("%use lets-plot, mylib\nval lost = 2"),
        )
        assertEquals("Unresolved reference 'lost'.", error("lost").substringAfter("error: ").substringBefore("\n"))
        assertEquals("plot", run("Figures.v()").assertValue().value, "loaded, with its default imports")
    }

    @Test
    fun `a library that cannot be resolved is a located error naming its artifact, and the others of its line load`() {
        assertEquals(
            "snippetN.kts:1:6: error: Cannot resolve 'org.jetbrains.kotlinx:kandy-lets-plot': no maven-metadata.xml lists its " +
                "versions in $url\n  | %use <error>kandy</error>",
            error("%use kandy"),
        )
        assertEquals(
            "snippetN.kts:1:6: error: Cannot resolve 'org.jetbrains.kotlinx:kandy-lets-plot': no maven-metadata.xml lists its " +
                "versions in $url\n  | %use <error>kandy</error>, dataframe(0.15.0)\n\n" +
                "snippetN.kts:1:13: warning: `%use dataframe` loaded for the next cells; nothing else of this cell ran\n" +
                "  | %use kandy, <error>dataframe(0.15.0)</error>",
            error("%use kandy, dataframe(0.15.0)\nval lost = 3"),
        )
        assertEquals("Unresolved reference 'lost'.", error("lost").substringAfter("error: ").substringBefore("\n"))
        assertEquals("frame", run("Frames.v()").assertValue().value, "loaded, with its default imports")
    }

    @Test
    fun `a use line inside a declaration is no magic`() {
        val message = error("fun f() {\n    %use datetime\n}")
        assertEquals("snippetN.kts:2:5: error: Syntax error: Expecting an element.", message.lineSequence().first())
    }
}
