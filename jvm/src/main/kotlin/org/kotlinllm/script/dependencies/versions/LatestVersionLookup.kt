package org.kotlinllm.script.dependencies.versions

import org.kotlinllm.script.dependencies.model.FailureKind
import org.kotlinllm.script.dependencies.model.MavenCoordinates
import org.kotlinllm.script.dependencies.model.Messages
import kotlin.time.Duration

/** The outcome of choosing a version for `group:artifact`: a version, or the message of why there is none. */
internal sealed interface VersionChoice {
    data class Chosen(val version: LatestVersion) : VersionChoice
    data class Unavailable(val message: String) : VersionChoice
}

/** Chooses the latest version of a module from the `maven-metadata.xml` of each repository, by [LatestVersionRule]. */
internal class LatestVersionLookup(
    private val metadata: MetadataVersions,
    private val rule: LatestVersionRule,
    private val timeout: Duration,
    /** The network mode of the sandbox the session runs in (null: none), which words a refusal. */
    private val sandboxNetwork: String? = null,
) {
    fun choose(coordinates: MavenCoordinates, repositories: List<String>): VersionChoice {
        val module = coordinates.module
        val answers = metadata.read(coordinates.groupId, coordinates.artifactId, repositories)
        val listed = answers.filterIsInstance<MetadataAnswer.Versions>().flatMap { it.versions }
        rule.choose(listed)?.let { return VersionChoice.Chosen(it) }
        if (listed.isNotEmpty()) return VersionChoice.Unavailable(Messages.onlySnapshots(module, listed.distinct()))
        val failure = answers.filterIsInstance<MetadataAnswer.Failed>().firstOrNull()
            ?: return VersionChoice.Unavailable(Messages.noVersions(module, repositories))
        val message = when (failure.kind) {
            FailureKind.UNREACHABLE -> Messages.unreachable(module, failure.repository, failure.cause)
            FailureKind.TIMEOUT -> Messages.timedOut(module, failure.repository, timeout)
            FailureKind.DENIED -> if (sandboxNetwork == "maven" && failure.cause.contains("403")) {
                Messages.denied(module, failure.repository, failure.repository, 403, sandboxNetwork)
            } else {
                Messages.failed(module, failure.repository, failure.cause)
            }
            else -> Messages.failed(module, failure.repository, failure.cause)
        }
        return VersionChoice.Unavailable(message)
    }
}
