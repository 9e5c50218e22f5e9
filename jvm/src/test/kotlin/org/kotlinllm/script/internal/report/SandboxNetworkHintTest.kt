package org.kotlinllm.script.internal.report

import java.io.IOException
import java.io.UncheckedIOException
import java.net.ConnectException
import java.net.UnknownHostException
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNull

/** The hint under a refused connection in a kotlin-llm sandbox whose network is limited, and nowhere else. */
class SandboxNetworkHintTest {
    private val refused = ConnectException("Connection refused")

    @Test
    fun `a refused connection in a maven sandbox says what is reachable and how to widen it`() {
        assertEquals(
            "the sandbox limits the network (--network maven): only the session's Maven repositories are reachable, " +
                "through its proxy; start the session with --network all to open the network",
            SandboxNetworkHint.of(UncheckedIOException(refused), "maven"),
        )
    }

    @Test
    fun `an unknown host in a sandbox without network says so`() {
        assertEquals(
            "the sandbox has no network (--network none); start the session with --network maven for its Maven " +
                "repositories, or --network all to open the network",
            SandboxNetworkHint.of(UnknownHostException("example.com"), "none"),
        )
    }

    @Test
    fun `no hint outside a sandbox, with the whole network, or for another error`() {
        assertNull(SandboxNetworkHint.of(refused, null))
        assertNull(SandboxNetworkHint.of(refused, "all"))
        assertNull(SandboxNetworkHint.of(IOException("disk full"), "maven"))
    }
}
