package org.kotlinllm.script.dependencies

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import org.kotlinllm.script.dependencies.model.BackendSettings
import org.kotlinllm.script.dependencies.resolver.ResolverClassLoader
import org.kotlinllm.script.dependencies.resolver.ResolverLibrary
import org.kotlinllm.script.dependencies.versions.LatestVersion
import org.kotlinllm.script.dependencies.versions.LatestVersionRule
import java.nio.file.Files
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNull
import kotlin.test.assertTrue

/** The version rule on version lists as real modules publish them, with maven-resolver's own ordering. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LatestVersionRuleTest {
    private val backend = ResolverLibrary.newBackend(BackendSettings(Files.createTempDirectory("m2"), 1000, 1000)).getOrThrow()
    private val rule = LatestVersionRule(backend.versionOrder)

    @AfterAll
    fun close() = backend.close()

    private fun choose(vararg versions: String) = rule.choose(versions.toList())

    @Test
    fun `the resolver runs in its own class loader, off the host classpath`() {
        assertIs<ResolverClassLoader>(backend.javaClass.classLoader)
        assertThrows<ClassNotFoundException> { Class.forName("org.eclipse.aether.RepositorySystem", false, javaClass.classLoader) }
        assertThrows<ClassNotFoundException> { Class.forName("org.apache.maven.model.Model", false, javaClass.classLoader) }
        assertTrue(backend.centralUrl.startsWith("https://"), backend.centralUrl)
    }

    @Test
    fun `Maven order of the requested set`() {
        val ordered = listOf(
            "0.8.0", "0.8.0-0.6.x-compat", "1.0-SNAPSHOT", "1.0", "1.0-android", "1.0-jre", "1.9.20-Beta", "1.9.20-RC1",
            "1.9.20", "2.0-alpha-1", "2.0-M1", "2.0-RC1", "2.0-SNAPSHOT", "2.0", "32.1.3-jre", "33.0.0-android", "33.0.0-jre",
        )
        assertEquals(ordered, ordered.shuffled(java.util.Random(4)).sortedWith(backend.versionOrder))
        assertEquals(0, backend.versionOrder.compare("1.0.Final", "1.0"))
    }

    @Test
    fun `the highest stable version, never a SNAPSHOT nor a pre-release`() {
        assertEquals(LatestVersion("1.1", false), choose("1.1", "1.0", "2.0-RC1", "2.0-SNAPSHOT"))
        assertEquals(LatestVersion("1.9.21", false), choose("1.9.20", "2.0-M1", "2.0.0-dev-5367", "1.9.21", "2.0.0-Beta1"))
        assertEquals(LatestVersion("4.1.101.Final", false), choose("4.1.100.Final", "4.1.101.Final", "5.0.0.Alpha2"))
        assertEquals(LatestVersion("5.3.1.RELEASE", false), choose("5.3.0.RELEASE", "5.3.1.RELEASE"))
        assertEquals(LatestVersion("21", false), choose("21-ea+15", "20.0.2", "21"))
        assertEquals(LatestVersion("1.0", false), choose("1.0", "1.1-preview", "1.1-eap", "1.1-pre1", "1.1-nightly"))
    }

    @Test
    fun `a qualified stable version gives way to its release`() {
        assertEquals(LatestVersion("0.8.0", false), choose("0.8.0", "0.8.0-0.6.x-compat"))
        assertEquals(LatestVersion("0.8.1-0.6.x-compat", false), choose("0.8.0", "0.8.0-0.6.x-compat", "0.8.1-0.6.x-compat"))
        assertEquals(LatestVersion("33.0.0-jre", false), choose("33.0.0-jre", "33.0.0-android", "32.1.3-jre", "33.0.0-rc1-jre"))
        assertEquals(LatestVersion("1.0", false), choose("1.0.Final", "1.0", "1.0-sp1"))
    }

    @Test
    fun `the highest pre-release when nothing is stable, nothing when only SNAPSHOTs`() {
        assertEquals(LatestVersion("1.0-beta-2", true), choose("1.0-alpha-1", "1.0-beta-2", "1.0-SNAPSHOT"))
        assertNull(choose("1.0-SNAPSHOT", "2.0-20250101.120000-1"))
        assertNull(choose())
    }

    @Test
    fun `pre-release keywords`() {
        val pre = listOf(
            "1.0-alpha-1", "1.0-alpha1", "1.0a1", "1.0-a1", "1.0-beta", "1.0-beta.1", "1.0-b2", "1.0b2", "1.0-M1", "1.0.M1",
            "1.0-milestone-1", "1.0-RC1", "1.0-rc.1", "1.0-CR1", "1.0-Beta", "1.0-BETA2", "1.0-RC", "1.0-M3-eap-102",
            "2.0.0-Beta1", "1.0-preview", "1.0-pre1", "1.0-dev", "2.0.0-dev-5367", "1.0-eap", "21-ea", "21-ea+15", "1.0-nightly",
        )
        val stable = listOf(
            "1.0", "1.0.Final", "1.0-final", "1.0-GA", "1.0.RELEASE", "1.0-sp1", "1.0-jre", "1.0-android", "1.0-1",
            "0.8.0-0.6.x-compat", "1.0-release-328", "9999.0-empty-to-avoid-conflict-with-guava",
        )
        pre.forEach { assertTrue(LatestVersionRule.isPreRelease(it), it) }
        stable.forEach { assertFalse(LatestVersionRule.isPreRelease(it), it) }
    }
}
