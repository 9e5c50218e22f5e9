package org.kotlinllm.script.internal.report

import java.net.ConnectException
import java.net.NoRouteToHostException
import java.net.UnknownHostException

/**
 * The advice under a snippet's failed connection in a kotlin-llm sandbox whose network is limited: what the sandbox
 * lets through and how to widen it. [mode] is the sandbox's network mode (`KOTLIN_LLM_SANDBOX_NETWORK`; null outside).
 */
internal object SandboxNetworkHint {

    /** The hint when [error] or one of its causes is a refused connection or an unknown host in a limited sandbox. */
    fun of(error: Throwable, mode: String?): String? {
        val text = when (mode) {
            "maven" ->
                "the sandbox limits the network (--network maven): only the session's Maven repositories are " +
                    "reachable, through its proxy; start the session with --network all to open the network"
            "none" ->
                "the sandbox has no network (--network none); start the session with --network maven for its " +
                    "Maven repositories, or --network all to open the network"
            else -> return null
        }
        val seen = HashSet<Throwable>()
        val refused = generateSequence(error) { it.cause }.takeWhile { seen.add(it) }
            .any { it is ConnectException || it is UnknownHostException || it is NoRouteToHostException }
        return text.takeIf { refused }
    }
}
