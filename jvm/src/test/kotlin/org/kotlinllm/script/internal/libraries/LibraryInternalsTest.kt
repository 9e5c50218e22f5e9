package org.kotlinllm.script.internal.libraries

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.TestMethodOrder
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.REFLECTIVE_CALLS
import org.kotlinllm.script.RenderedLibraries.DATAFRAME_CORE
import org.kotlinllm.script.RenderedLibraries.JARS
import org.kotlinllm.script.RenderedLibraries.LETS_PLOT
import org.kotlinllm.script.ScriptSession
import org.kotlinllm.script.SessionConfiguration
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.internal.libraries.LibraryInternals.Lookup
import org.kotlinllm.script.linesMatching
import org.kotlinllm.script.testLibraries
import java.io.File
import java.nio.file.Files
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

/**
 * The engine's one door into the libraries' code ([LibraryInternals]): on the real DataFrame and lets-plot that
 * scripts/setup.sh fetched (tests/libraries.py), loaded by a session as a user loads them, every lookup resolves, so
 * that a library version that renames a member fails here; a miss is an exception the callers report; no other code
 * of the libraries package reflects.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class LibraryInternalsTest {

    private val local = Files.createTempDirectory("library-internals")
    private val session = ScriptSession(
        configuration = SessionConfiguration(
            localRepository = local,
            defaultRepositories = listOf(testLibraries(*JARS.toTypedArray()).toUri().toString()),
        ),
    )

    @AfterAll
    fun close() {
        session.close()
        local.toFile().deleteRecursively()
    }

    private fun value(code: String): Any = assertNotNull(runBlocking { session.execute(code) }.assertValue().value, code)

    @Test
    @Order(1)
    fun `every lookup resolves against the real artifacts`() {
        val frame = value("@file:DependsOn(\"$DATAFRAME_CORE\")\norg.jetbrains.kotlinx.dataframe.api.dataFrameOf(\"a\")(1, 2)")
        val figure = value("@file:DependsOn(\"$LETS_PLOT\")\norg.jetbrains.letsPlot.letsPlot()")
        val loaders = mapOf("DataFrame" to frame.javaClass.classLoader, "lets-plot" to figure.javaClass.classLoader)
        val unresolved = Lookup.entries.mapNotNull { lookup ->
            val loader = assertNotNull(loaders[lookup.library], "a loader of ${lookup.library}, for $lookup")
            try {
                LibraryInternals.resolve(lookup, loader)
                null
            } catch (e: LibraryInternals.Missing) {
                e.message
            }
        }
        assertEquals(emptyList(), unresolved, "lookups that did not resolve")
        assertEquals(emptyList(), LibraryInternals.reached().filterValues { !it }.keys.toList(), "lookups the record holds as missed")

        // the generator's private field, as forgetting a marker reaches it
        val accessors = DataFrameAccessors()
        val generated = assertNotNull(accessors.frame(frame), "the accessors of a frame")
        assertTrue(generated.marker.startsWith(DataFrameNames.MARKER_PREFIX), generated.marker)
        assertTrue(accessors.forget(generated.declarations), "the markers of ${generated.declarations}")
    }

    @Test
    @Order(2)
    fun `a member that is not there is an exception that names it and why, recorded as missed`() {
        // the JDK's classes only: no DataFrame
        val missing = assertFailsWith<LibraryInternals.Missing> { LibraryInternals.read(Lookup.GENERATED_MARKERS, Any()) }
        val message = missing.message.orEmpty()
        val named = "DataFrame's ${DataFrameNames.GENERATOR_IMPL}.generatedMarkers is not found: java.lang.ClassNotFoundException: "
        assertTrue(message.startsWith(named) && message.endsWith("(${Lookup.GENERATED_MARKERS.why})"), message)
        assertEquals(false, LibraryInternals.reached()[Lookup.GENERATED_MARKERS.name])
    }

    @Test
    fun `no code of the libraries package but the door reflects`() {
        // surefire sets basedir; the working directory is the same
        val sources = File(System.getProperty("basedir") ?: ".", "src/main/kotlin/org/kotlinllm/script/internal/libraries")
        val files = sources.listFiles { file -> file.extension == "kt" && file.name != "LibraryInternals.kt" }.orEmpty().toList()
        assertTrue(files.size > 5, "the libraries package's sources are found in $sources")
        // beyond the compiler door's patterns: a library's classes are found and called by name too
        val libraryCalls = listOf(
            """java\.lang\.reflect\.(?!InvocationHandler\b)""",
            """forName\(""",
            """newProxyInstance""",
            """\.invoke\(""",
            """getField\(""",
        ).map(::Regex)
        assertEquals(emptyList(), linesMatching(files, REFLECTIVE_CALLS + libraryCalls), "reflection outside LibraryInternals.kt")
    }

    @Test
    fun `DataFrame's names are written in DataFrameNames only`() {
        val sources = File(System.getProperty("basedir") ?: ".", "src/main/kotlin")
        // string literals, not comments: a name the engine looks up or writes into code
        val spelled = Regex(""""[^"\n]*(org\.jetbrains\.kotlinx\.dataframe|org\.jetbrains\.dataframe|_DataFrameType)""")
        val files = sources.walkTopDown()
            .filter { it.isFile && it.extension == "kt" && it.name != "DataFrameNames.kt" }
            .filter { file -> file.readLines().any { spelled.containsMatchIn(it) } }
            .map { it.name }
            .toList()
        assertEquals(emptyList(), files, "files that spell DataFrame's names instead of reading DataFrameNames")
    }

    @Test
    fun `DataFrame's artifact ships the integration the catalogue names`() {
        val integration = assertNotNull(Libraries.DATAFRAME.integration)
        val (group, artifact) = integration.coordinates.split(':')
        val folder = testLibraries().resolve(group.replace('.', '/')).resolve(artifact).toFile()
        val jar = assertNotNull(folder.walkTopDown().firstOrNull { it.name.endsWith(".jar") }, "a jar of ${integration.coordinates}")
        val descriptor = java.util.zip.ZipFile(jar).use { zip ->
            val entry = assertNotNull(zip.getEntry(org.kotlinllm.script.internal.jupyterapi.Integrations.DESCRIPTOR), "$jar's descriptor")
            zip.getInputStream(entry).use { it.readBytes().decodeToString() }
        }
        assertTrue(Regex(""""fqn"\s*:\s*"${Regex.escape(integration.producer)}"""").containsMatchIn(descriptor), descriptor)
    }
}
