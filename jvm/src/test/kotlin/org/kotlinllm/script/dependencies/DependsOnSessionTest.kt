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
import kotlin.test.assertTrue

/** `@file:DependsOn` and `@file:Repository` through a session, against repositories served on 127.0.0.1. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class DependsOnSessionTest {

    private val server = RepositoryServer(Fixtures.root)
    private val localRepository = Files.createTempDirectory("local-repo")
    private val session = ScriptSession(
        configuration = SessionConfiguration(localRepository = localRepository, defaultRepositories = listOf(server.url("repo1/"))),
    )

    @AfterAll
    fun close() {
        session.close()
        server.close()
        localRepository.toFile().deleteRecursively()
    }

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    private fun message(code: String, phase: ExecutionPhase): String =
        run(code).assertError(phase).message.replace("snippet${session.lastSnippetNumber}.kts", "snippetN.kts")

    @Test
    fun `a dependency with its transitive ones is available to the snippet and the later ones`() {
        val value = run("@file:DependsOn(\"com.example:app:1.0\")\nimport com.example.app.App\nApp.run()").assertValue()
        assertEquals("Hello from greeter 1.1", value.value)
        assertEquals(emptyMap(), value.resolvedVersions)
        assertEquals(
            "1.1 yy",
            run("com.example.greeter.Greeter.version() + \" \" + com.example.util.Util.twice(\"y\")").assertValue().value,
        )
        assertEquals(
            true,
            run(
                "val contextLoader = Thread.currentThread().contextClassLoader\n" +
                    "Class.forName(\"com.example.util.Util\", false, contextLoader) == com.example.util.Util::class.java &&\n" +
                    "contextLoader === object {}.javaClass.classLoader",
            ).assertValue().value,
            "the context class loader is the snippet's, which sees its dependencies",
        )
    }

    @Test
    fun `a version-less dependency resolves to the latest stable version, which the result tells`() {
        val value = run("@file:DependsOn(\"com.example:compat\")\n1").assertValue()
        assertEquals(mapOf("com.example:compat" to "0.8.0"), value.resolvedVersions)
    }

    @Test
    fun `an unresolvable dependency fails the snippet at its DependsOn line and compiles nothing`() {
        assertEquals(
            "snippetN.kts:1:1: error: Cannot resolve 'com.example:nosuch:1.0': not found in ${server.url("repo1/")}\n" +
                "  | <error>@file:DependsOn(\"com.example:nosuch:1.0\")</error>",
            message("@file:DependsOn(\"com.example:nosuch:1.0\")\nval declaredWithMissingDependency = 1", ExecutionPhase.COMPILATION),
        )
        assertTrue(
            "Unresolved reference 'declaredWithMissingDependency'" in message("declaredWithMissingDependency", ExecutionPhase.COMPILATION),
        )
    }

    @Test
    fun `a failed snippet reports the version it resolved as a warning at the DependsOn line`() {
        assertEquals(
            "snippetN.kts:1:17: warning: Resolved 'com.example:onlypre' to its latest pre-release version '1.0-beta-2'\n" +
                "  | @file:DependsOn(<error>\"com.example:onlypre\"</error>)\n\n" +
                "snippetN.kts:2:1: error: Unresolved reference 'notThere'.\n  | <error>notThere</error>",
            message("@file:DependsOn(\"com.example:onlypre\")\nnotThere", ExecutionPhase.COMPILATION),
        )
    }

    @Test
    fun `a class of the host wins over the same class in a dependency`() {
        val value = run(
            "@file:DependsOn(\"com.example:hostlib:1.0\")\n" +
                "import org.kotlinllm.script.dependencies.HostLib\n" +
                "import org.kotlinllm.script.dependencies.OnlyInDependency\n" +
                "HostLib.who() + \" / \" + OnlyInDependency.who()",
        ).assertValue()
        assertEquals("host / only in the dependency", value.value)
    }

    @Test
    fun `a version range is resolved by Maven`() = runBlocking {
        val configuration = SessionConfiguration(localRepository = localRepository, defaultRepositories = listOf(server.url("repo1/")))
        ScriptSession(configuration = configuration).use { fresh ->
            val value = fresh.execute("@file:DependsOn(\"com.example:greeter:[1.0,1.0]\")\ncom.example.greeter.Greeter.version()")
            assertEquals("1.0", value.assertValue().value)
        }
    }

    @Test
    fun `a library's older kotlin-stdlib is left out for the host's without a word`() {
        val value = run("@file:DependsOn(\"com.example:kotlinuser:1.0\")\nKotlinVersion.CURRENT.toString()").assertValue()
        assertEquals(KotlinVersion.CURRENT.toString(), value.value)
        assertEquals(emptyList(), value.warnings)
    }

    @Test
    fun `a library that needs a newer version than an earlier cell loaded gets one warning, saying what to do`() = runBlocking {
        val configuration = SessionConfiguration(localRepository = localRepository, defaultRepositories = listOf(server.url("repo1/")))
        ScriptSession(configuration = configuration).use { fresh ->
            assertEquals(emptyList(), fresh.execute("@file:DependsOn(\"com.example:greeter:1.0\")").assertValue().warnings)
            val value = fresh.execute("@file:DependsOn(\"com.example:app:1.0\")\ncom.example.app.App.run()").assertValue()
            assertEquals("Hello from greeter 1.0", value.value)
            assertEquals(
                listOf(
                    "snippet${fresh.lastSnippetNumber}.kts:1:1: warning: Version conflict: 'com.example:app:1.0' needs newer " +
                        "versions than this session loaded before, which stay in use: 'com.example:greeter:1.1' (loaded: 1.0); " +
                        "calls into their newer API may fail with NoSuchMethodError or NoClassDefFoundError\n" +
                        "  | <error>@file:DependsOn(\"com.example:app:1.0\")</error>\n" +
                        "hint: to use the newer versions, restart the kernel and run @file:DependsOn(\"com.example:app:1.0\") " +
                        "before loading 'com.example:greeter:1.0'",
                ),
                value.warnings,
            )
        }
    }
}
