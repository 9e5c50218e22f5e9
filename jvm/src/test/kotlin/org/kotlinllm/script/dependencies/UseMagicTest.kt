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
import org.kotlinllm.script.diagnostics.SourceText
import org.kotlinllm.script.internal.compiler.source.UseMagic
import java.nio.file.Files
import kotlin.test.assertEquals

/**
 * `%use` through a session, against a repository on 127.0.0.1 that serves stand-ins of the libraries it knows under
 * their real coordinates (one class each, in the packages `%use` imports); and what a `%use` line names, read alone.
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

    @Test
    fun `options after a known library name select its version with v and keep the others for a descriptor`() {
        // the repository lists no versions of serialization: it resolves only at the version given
        val value = run("%use serialization(v=1.0, prettyPrint=true)\nJsonThing.v()").assertValue()
        assertEquals("json", value.value)
        assertEquals(emptyList(), value.warnings)
    }

    @Test
    fun `a known library at a git reference loads the kernel's own, and says so`() {
        val value = run("%use lets-plot@0a1b2c3(4.5.0)\nFigures.v()").assertValue()
        assertEquals("plot", value.value)
        assertEquals(
            listOf(
                "snippet${session.lastSnippetNumber}.kts:1:6: warning: `%use lets-plot@0a1b2c3(4.5.0)`: this kernel does not fetch " +
                    "descriptors at a git reference ('0a1b2c3'); it loads its own lets-plot\n" +
                    "  | %use <error>lets-plot@0a1b2c3(4.5.0)</error>",
            ),
            value.warnings,
        )
    }

    @Test
    fun `another library at a git reference is an error saying that such descriptors are not fetched`() {
        assertEquals(
            "snippetN.kts:1:6: error: `%use krangl@ref[0a1b2c3]`: this kernel does not fetch descriptors at a git reference " +
                "('0a1b2c3'), and its %use knows dataframe, lets-plot, kandy, serialization, datetime, ktor-client, coroutines\n" +
                "  | %use <error>krangl@ref[0a1b2c3]</error>\n" +
                "hint: for another library write @file:DependsOn(\"group:artifact:version\") with the Maven coordinates of its " +
                "artifact, or save its descriptor and write %use @file[krangl.json]",
            error("%use krangl@ref[0a1b2c3]"),
        )
    }

    /** What `%use` line [line] names, each thing and note as one line of text with its columns. */
    private fun read(line: String): List<String> {
        val read = UseMagic.readLine(SourceText(line), 1) ?: return emptyList()
        val requests = read.requests.map { request ->
            val what = when (request) {
                is UseMagic.Library -> "library ${request.name} ${request.dependencies.map { it.value }}"
                is UseMagic.DescriptorFile -> "file ${request.path}"
                is UseMagic.DescriptorUrl -> "url ${request.url}"
            }
            val options = request.options.joinToString(", ") { if (it.name == null) it.value else "${it.name}=${it.value}" }
            "${request.range.startColumn}-${request.range.endColumn} $what ($options) `${request.text}`"
        }
        val notes = read.diagnostics.map {
            "${it.range?.startColumn}-${it.range?.endColumn} ${it.severity.name.lowercase()}: ${it.message}" +
                (it.hint?.let { hint -> " | $hint" } ?: "")
        }
        return requests + notes
    }

    @Test
    fun `known libraries with named and positional options`() {
        assertEquals(
            listOf(
                "6-53 library dataframe [org.jetbrains.kotlinx:dataframe:0.15.0] (enableExperimentalCsv=true) " +
                    "`dataframe(v=0.15.0, enableExperimentalCsv=true)`",
                "55-72 library lets-plot [org.jetbrains.lets-plot:lets-plot-kotlin-jvm:4.5.0] () `lets-plot (4.5.0)`",
                "73-81 library datetime [org.jetbrains.kotlinx:kotlinx-datetime] () `datetime`",
            ),
            read("%use dataframe(v=0.15.0, enableExperimentalCsv=true), lets-plot (4.5.0) datetime // later: kandy"),
        )
        assertEquals(
            listOf(
                "6-39 library kandy [org.jetbrains.kotlinx:kandy-lets-plot:0.8.0] (title=a, \"b\", 2) `kandy(title=\"a, \\\"b\\\"\", 0.8.0, 2)`",
            ),
            read("%use kandy(title=\"a, \\\"b\\\"\", 0.8.0, 2)"),
        )
    }

    @Test
    fun `descriptor files and URLs, with options`() {
        assertEquals(
            listOf(
                "6-26 file lib.json (a=1) `@file[lib.json](a=1)`",
                "28-53 file my libs/lib.json () `@file[\"my libs/lib.json\"]`",
                "55-70 file libs/mylib.json () `mylib@dir[libs]`",
                "72-95 file libs/krangl.json () `krangl@libs/krangl.json`",
            ),
            read("%use @file[lib.json](a=1), @file[\"my libs/lib.json\"], mylib@dir[libs], krangl@libs/krangl.json"),
        )
        assertEquals(
            listOf("6-36 file my lib.json (a) `@file[path = \"my lib.json\"](a)`"),
            read("%use @file[path = \"my lib.json\"](a)"),
        )
        assertEquals(
            listOf(
                "6-49 url https://example.org/a,b/lib.json (v=2) `@url[https://example.org/a,b/lib.json](v=2)`",
                "51-81 url https://example.org/other.json () `https://example.org/other.json`",
                "82-126 url https://example.org/krangl.json (0.18) `krangl@https://example.org/krangl.json(0.18)`",
            ),
            read(
                "%use @url[https://example.org/a,b/lib.json](v=2), https://example.org/other.json krangl@https://example.org/krangl.json(0.18)",
            ),
        )
    }

    @Test
    fun `git references, the kernel's own descriptors, and forms that name nothing`() {
        assertEquals(
            listOf(
                "6-23 library lets-plot [org.jetbrains.lets-plot:lets-plot-kotlin-jvm] () `lets-plot@0a1b2c3`",
                "25-44 library dataframe [org.jetbrains.kotlinx:dataframe] () `dataframe@classpath`",
                "46-55 library datetime [org.jetbrains.kotlinx:kotlinx-datetime] () `datetime@`",
                "6-23 warning: `%use lets-plot@0a1b2c3`: this kernel does not fetch descriptors at a git reference ('0a1b2c3'); " +
                    "it loads its own lets-plot",
            ),
            read("%use lets-plot@0a1b2c3, dataframe@classpath, datetime@"),
        )
        val names = "dataframe, lets-plot, kandy, serialization, datetime, ktor-client, coroutines"
        assertEquals(
            listOf(
                "6-14 error: `%use lib.json`: unknown library 'lib.json'; this kernel's %use knows $names | " +
                    "for a descriptor file write %use @file[lib.json]",
                "16-23 error: `%use @file[]`: name the descriptor file: `%use @file[lib.json]`",
                "25-35 error: `%use @dir[libs]`: name the library whose descriptor the directory holds: " +
                    "`%use lib@dir[libs]` reads libs/lib.json",
                "37-43 error: `%use @url[]`: name the descriptor's URL: `%use @url[https://…/lib.json]`",
            ),
            read("%use lib.json, @file[], @dir[libs], @url[]"),
        )
    }
}
