package org.kotlinllm.script.dependencies

import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable
import org.junit.jupiter.api.io.TempDir
import org.kotlinllm.script.SessionConfiguration
import org.kotlinllm.script.dependencies.model.BackendSettings
import org.kotlinllm.script.dependencies.resolver.ResolverLibrary
import org.kotlinllm.script.dependencySettings
import java.nio.file.Path
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertIs
import kotlin.test.assertTrue

/** Opt-in: reaches Maven Central. Run with KOTLIN_LLM_TEST_MAVEN_CENTRAL=1. */
@EnabledIfEnvironmentVariable(named = "KOTLIN_LLM_TEST_MAVEN_CENTRAL", matches = "1")
class MavenCentralTest {
    @TempDir
    lateinit var localRepository: Path

    @Test
    fun `resolves jsoup from Maven Central with and without version`() {
        SessionDependencies(
            SessionConfiguration(localRepository = localRepository).dependencySettings(),
            javaClass.classLoader,
        ).use { session ->
            val pinned =
                assertIs<DependencyResolution.Resolved>(session.resolve(Snippets.declared("@file:DependsOn(\"org.jsoup:jsoup:1.16.1\")")))
            assertEquals(listOf("jsoup-1.16.1.jar"), pinned.classpath.map { it.name })

            val latest = assertIs<DependencyResolution.Resolved>(session.resolve(Snippets.declared("@file:DependsOn(\"org.jsoup:jsoup\")")))
            val version = latest.resolvedVersions.getValue("org.jsoup:jsoup")
            assertTrue(backendOrder().compare(version, "1.16.1") > 0, version)
            assertEquals(listOf("jsoup-$version.jar"), latest.classpath.map { it.name })
        }
    }

    private fun backendOrder(): Comparator<String> =
        ResolverLibrary.newBackend(BackendSettings(localRepository, 1000, 1000)).getOrThrow().use { it.versionOrder }
}
