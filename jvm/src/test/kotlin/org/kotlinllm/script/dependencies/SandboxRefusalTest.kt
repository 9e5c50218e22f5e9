package org.kotlinllm.script.dependencies

import org.kotlinllm.script.dependencies.model.Messages
import kotlin.test.Test
import kotlin.test.assertEquals

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
}
