package org.kotlinllm.script.host

import org.junit.jupiter.api.Test
import org.kotlinllm.script.SessionConfiguration
import java.nio.file.Path
import kotlin.test.assertEquals
import kotlin.time.Duration.Companion.seconds

class HostSettingsTest {
    @Test
    fun `the builder sets each setting by its name, and one not set keeps the engine's default`() {
        val built = HostSettings.builder()
            .localRepository("local-m2")
            .repositories(listOf("https://repo.example/maven/"))
            .resolutionTimeoutMillis(7_000L)
            .mavenSettings("maven-settings.xml")
            .maxDisplayBytes(100L)
            .build()
        assertEquals(Path.of("local-m2"), built.configuration.localRepository)
        assertEquals(listOf("https://repo.example/maven/"), built.configuration.defaultRepositories)
        assertEquals(7.seconds, built.configuration.resolutionTimeout)
        assertEquals(Path.of("maven-settings.xml"), built.configuration.mavenSettings)
        assertEquals(100L, built.maxDisplayBytes)

        val defaults = SessionConfiguration()
        val partial = HostSettings.builder().resolutionTimeoutMillis(7_000L).build()
        assertEquals(defaults.localRepository, partial.configuration.localRepository)
        assertEquals(defaults.defaultRepositories, partial.configuration.defaultRepositories)
        assertEquals(defaults.mavenSettings, partial.configuration.mavenSettings)
        assertEquals(7.seconds, partial.configuration.resolutionTimeout)
        assertEquals(DisplayLimit.DEFAULT_MAX_BYTES, partial.maxDisplayBytes)
        assertEquals(HostSettings().toString(), HostSettings.builder().build().toString())
    }
}
