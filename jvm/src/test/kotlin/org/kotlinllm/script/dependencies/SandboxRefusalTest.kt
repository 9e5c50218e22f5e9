package org.kotlinllm.script.dependencies

import com.sun.net.httpserver.HttpServer
import org.kotlinllm.script.dependencies.model.MavenCoordinates
import org.kotlinllm.script.dependencies.model.Messages
import org.kotlinllm.script.dependencies.versions.LatestVersionLookup
import org.kotlinllm.script.dependencies.versions.LatestVersionRule
import org.kotlinllm.script.dependencies.versions.MetadataVersions
import org.kotlinllm.script.dependencies.versions.VersionChoice
import java.net.InetSocketAddress
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.time.Duration.Companion.seconds

/** How a refused download is worded in a kotlin-llm sandbox ([SANDBOX_NETWORK_ENV]) and outside one. */
class SandboxRefusalTest {
    private val url = "https://example.com/maven/"
    private val id = "https___example.com_maven_"

    @Test
    fun `a 403 in a sandbox of network mode maven is the proxy's refusal and says how to widen it`() {
        assertEquals(
            "Cannot resolve 'com.example:x:1.0': the sandbox refused https://example.com/maven/ (--network maven reaches " +
                "only the session's Maven repositories); configure it for the session (--repository URL) or start the " +
                "session with --network all",
            Messages.denied("com.example:x:1.0", url, id, 403, "maven"),
        )
    }

    @Test
    fun `outside a sandbox, with another mode or another status a denial asks for credentials`() {
        val credentials = "Cannot resolve 'com.example:x:1.0': https://example.com/maven/ denied access (HTTP %d); " +
            "give its credentials in a <server> with the id 'https___example.com_maven_' of the Maven settings"
        assertEquals(credentials.format(403), Messages.denied("com.example:x:1.0", url, id, 403))
        assertEquals(credentials.format(403), Messages.denied("com.example:x:1.0", url, id, 403, "all"))
        assertEquals(credentials.format(401), Messages.denied("com.example:x:1.0", url, id, 401, "maven"))
    }

    @Test
    fun `a version-less dependency whose metadata the proxy refuses says the same`() {
        // a loopback server answering 403 to everything, as the sandbox's egress proxy answers a host it does not allow
        val server = HttpServer.create(InetSocketAddress("127.0.0.1", 0), 0).apply {
            createContext("/") { exchange -> exchange.sendResponseHeaders(403, -1).also { exchange.close() } }
            start()
        }
        try {
            val repository = "http://127.0.0.1:${server.address.port}/maven/"
            val rule = LatestVersionRule(compareBy { it })
            val choose = { network: String? ->
                LatestVersionLookup(
                    MetadataVersions(10.seconds),
                    rule,
                    10.seconds,
                    network,
                ).choose(MavenCoordinates("com.example", "x", null), listOf(repository))
            }
            assertEquals(
                VersionChoice.Unavailable(
                    "Cannot resolve 'com.example:x': the sandbox refused $repository (--network maven reaches only the session's Maven " +
                        "repositories); configure it for the session (--repository URL) or start the session with --network all",
                ),
                choose("maven"),
            )
            assertEquals(
                VersionChoice.Unavailable(
                    "Cannot resolve 'com.example:x' from $repository: HTTP 403 for ${repository}com/example/x/maven-metadata.xml",
                ),
                choose(null),
            )
        } finally {
            server.stop(0)
        }
    }
}
