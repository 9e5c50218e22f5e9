package org.kotlinllm.script.dependencies

import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.io.TempDir
import org.kotlinllm.script.SessionConfiguration
import org.kotlinllm.script.dependencies.model.MavenSettings
import org.kotlinllm.script.dependencies.model.SettingsMirror
import org.kotlinllm.script.dependencies.model.SettingsProxy
import org.kotlinllm.script.dependencies.model.SettingsServer
import org.kotlinllm.script.dependencies.resolver.SettingsReader
import org.kotlinllm.script.dependencySettings
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import java.nio.file.Path
import kotlin.io.path.writeText
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** The mirrors, proxies and server credentials of the Maven settings, against servers on 127.0.0.1. */
class MavenSettingsTest {
    @TempDir
    lateinit var work: Path

    private val server = RepositoryServer(Fixtures.root)
    private val opened = mutableListOf<AutoCloseable>(server)

    @AfterEach
    fun close() = opened.reversed().forEach { it.close() }

    private fun <T : AutoCloseable> open(closeable: T): T = closeable.also { opened += it }

    private fun session(settings: Path?, vararg defaults: String): SessionDependencies =
        open(
            SessionDependencies(
                SessionConfiguration(
                    localRepository = work.resolve("local"),
                    defaultRepositories = defaults.toList(),
                    mavenSettings = settings,
                ).dependencySettings(),
                javaClass.classLoader,
            ),
        )

    private fun settings(mirrors: String = "", proxies: String = "", servers: String = "", extra: String = ""): Path =
        writeSettings(work.resolve("settings.xml"), mirrors, proxies, servers, extra)

    private val greeter = "@file:DependsOn(\"com.example:greeter:1.1\")"

    @Test
    fun `a mirror of every repository replaces an unreachable one, and the settings' local repository is not used`() {
        val refusing = RepositoryServer.refusingUrl()
        val file = settings(
            mirrors = mirror("everything", server.url("repo1/"), "*"),
            extra = "<localRepository>${work.resolve("other")}</localRepository>",
        )
        val result = session(file, refusing).resolved(greeter)
        assertEquals(listOf("greeter-1.1.jar"), result.names())
        assertTrue(result.classpath.all { it.toPath().startsWith(work.resolve("local")) }, "${result.classpath}")
        assertTrue("/repo1/com/example/greeter/1.1/greeter-1.1.jar" in server.requests, "${server.requests}")
    }

    @Test
    fun `Maven Central has the id central, and a declared repository the id derived from its URL`() {
        val refusing = RepositoryServer.refusingUrl()
        val declared = RepositoryServer.refusingUrl()
        val declaredId = declared.replace(Regex("[^A-Za-z0-9._-]"), "_")
        val file = settings(
            mirrors = mirror("for-central", server.url("repo1/"), "other,central") +
                mirror("for-declared", server.url("repo2/"), declaredId),
        )
        val previous = System.setProperty(CENTRAL_PROPERTY, refusing)
        try {
            val session = session(file)
            assertEquals(listOf("greeter-1.1.jar"), session.resolved(greeter).names())
            assertEquals(
                listOf("greeter-1.2.jar"),
                session.resolved("@file:Repository(\"$declared\")\n@file:DependsOn(\"com.example:greeter:1.2\")").names(),
            )
        } finally {
            if (previous == null) System.clearProperty(CENTRAL_PROPERTY) else System.setProperty(CENTRAL_PROPERTY, previous)
        }
        assertTrue("/repo2/com/example/greeter/1.2/greeter-1.2.jar" in server.requests, "${server.requests}")
    }

    @Test
    fun `a mirror excluding the repository with !id leaves it alone`() {
        val refusing = RepositoryServer.refusingUrl()
        val id = refusing.replace(Regex("[^A-Za-z0-9._-]"), "_")
        val file = settings(mirrors = mirror("everything", server.url("repo1/"), "*,!$id"))
        assertEquals(
            listOf(error("Cannot resolve 'com.example:greeter:1.1': cannot connect to $refusing: Connection refused", 1, 1, 43)),
            session(file, refusing).failed(greeter),
        )
    }

    @Test
    fun `server credentials are sent to the repository of the same id`() {
        val secured = open(RepositoryServer(Fixtures.root, credentials = "alice:secret"))
        val url = secured.url("repo1/")
        val id = url.replace(Regex("[^A-Za-z0-9._-]"), "_")
        assertEquals(listOf("greeter-1.1.jar"), session(settings(servers = server(id, "alice", "secret")), url).resolved(greeter).names())
    }

    @Test
    fun `without credentials a secured repository fails with the id a server entry needs`() {
        val secured = open(RepositoryServer(Fixtures.root, credentials = "alice:secret"))
        val url = secured.url("repo1/")
        val id = url.replace(Regex("[^A-Za-z0-9._-]"), "_")
        val expected = listOf(
            error(
                "Cannot resolve 'com.example:greeter:1.1': $url denied access (HTTP 401); " +
                    "give its credentials in a <server> with the id '$id' of the Maven settings",
                1,
                1,
                43,
            ),
        )
        assertEquals(expected, session(null, url).failed(greeter))
        assertEquals(expected, session(settings(servers = server(id, "alice", "wrong")), url).failed(greeter))
    }

    @Test
    fun `a mirrored repository gets the credentials of the mirror's id`() {
        val secured = open(RepositoryServer(Fixtures.root, credentials = "bob:pw"))
        val file = settings(
            mirrors = mirror("corporate", secured.url("repo1/"), "*"),
            servers = server("corporate", "bob", "pw"),
        )
        assertEquals(listOf("greeter-1.1.jar"), session(file, RepositoryServer.refusingUrl()).resolved(greeter).names())
    }

    @Test
    fun `artifacts go through the active proxy, unless their host is a non-proxy host`() {
        val proxy = open(TestProxy())
        val idle = open(TestProxy())
        val repo1 = server.url("repo1/")
        val file = settings(proxies = proxy(idle.port, active = false) + proxy(proxy.port))
        assertEquals(listOf("greeter-1.1.jar"), session(file, repo1).resolved(greeter).names())
        assertTrue("${repo1}com/example/greeter/1.1/greeter-1.1.jar" in proxy.requests, "${proxy.requests}")
        assertEquals(emptyList(), idle.requests)

        val direct = settings(proxies = proxy(proxy.port, nonProxyHosts = "localhost|127.0.0.*"))
        val before = proxy.requests.size
        work.resolve("local").toFile().deleteRecursively()
        assertEquals(listOf("greeter-1.1.jar"), session(direct, repo1).resolved(greeter).names())
        assertEquals(before, proxy.requests.size, "${proxy.requests}")
    }

    @Test
    fun `version-less coordinates read maven-metadata xml directly, and the artifact through mirror and proxy`() {
        val mirrorServer = open(RepositoryServer(Fixtures.root))
        val proxy = open(TestProxy())
        val file = settings(mirrors = mirror("everything", mirrorServer.url("repo1/"), "*"), proxies = proxy(proxy.port))
        val result = session(file, server.url("repo1/")).resolved("@file:DependsOn(\"com.example:greeter\")")
        assertEquals(mapOf("com.example:greeter" to "1.1"), result.resolvedVersions)
        assertEquals(listOf("greeter-1.1.jar"), result.names())
        assertEquals(listOf("/repo1/com/example/greeter/maven-metadata.xml"), server.requests)
        assertTrue(mirrorServer.requests.none { it.endsWith("maven-metadata.xml") }, "${mirrorServer.requests}")
        assertTrue("/repo1/com/example/greeter/1.1/greeter-1.1.jar" in mirrorServer.requests, "${mirrorServer.requests}")
        assertTrue(proxy.requests.isNotEmpty() && proxy.requests.all { it.startsWith(mirrorServer.url("repo1/")) }, "${proxy.requests}")
        assertTrue(proxy.requests.none { it.endsWith("maven-metadata.xml") }, "${proxy.requests}")
    }

    @Test
    fun `a named settings file that is missing or malformed fails the dependencies`() {
        val missing = work.resolve("missing.xml")
        assertEquals(
            listOf(error("Cannot resolve dependencies: the Maven settings file $missing does not exist", 1, 1, 43)),
            session(missing, server.url("repo1/")).failed(greeter),
        )
        val malformed = work.resolve("malformed.xml").also { it.writeText("<settings><mirrors></settings>") }
        assertEquals(
            listOf(
                error(
                    "Cannot resolve dependencies: the Maven settings file $malformed is unreadable: " +
                        "The element type \"mirrors\" must be terminated by the matching end-tag \"</mirrors>\".",
                    1,
                    1,
                    43,
                ),
            ),
            session(malformed, server.url("repo1/")).failed(greeter),
        )
        assertEquals(emptyList(), server.requests)
    }

    @Test
    fun `the settings are read as Maven reads them`() {
        val file = settings(
            mirrors = mirror("m", "\${user.home}/mirror", "*") + "<mirror><id>no-url</id><mirrorOf>*</mirrorOf></mirror>",
            proxies = proxy(3128, active = false) + "<proxy><host>proxy.example</host></proxy>",
            servers = server("s", "\${env.KOTLINLLM_UNSET_VARIABLE}", "pw"),
        )
        assertEquals(
            MavenSettings(
                mirrors = listOf(SettingsMirror("m", System.getProperty("user.home") + "/mirror", "*", "default", "default,legacy", false)),
                proxies = listOf(SettingsProxy("http", "proxy.example", 8080, null, null, null)),
                servers = listOf(SettingsServer("s", "\${env.KOTLINLLM_UNSET_VARIABLE}", "pw", null, null)),
            ),
            SettingsReader.read(file),
        )
    }

    private fun error(message: String, line: Int, start: Int, end: Int) =
        Diagnostic(Severity.ERROR, message, SourceRange(line, start, line, end))

    private companion object {
        /** Maven's own override of Central's URL, read by the backend when it starts. */
        const val CENTRAL_PROPERTY = "maven.repo.central"
    }
}
