package org.kotlinllm.script.dependencies.model

import java.io.File
import java.nio.file.Path

/**
 * The Maven resolver, as the engine sees it. Implemented by `maven.AetherBackend`, which is only ever loaded by
 * [ResolverClassLoader], so maven-resolver's classes stay off the host classpath. Only JDK, Kotlin and the types
 * of this file cross between the two class loaders.
 */
internal interface MavenBackend : AutoCloseable {
    /** Maven Central's URL, as Maven's super POM declares it. */
    val centralUrl: String

    /** The Maven order of versions: maven-resolver's `GenericVersionScheme`. */
    val versionOrder: Comparator<String>

    /**
     * Resolves [coordinates] (`group:artifact[:extension[:classifier]]:version`) and its compile and runtime
     * dependencies from [repositories] only, into the local repository. Never throws for resolution problems.
     * [onTransfer] is called with a repository URL and whether the repository answered (`true` when a transfer
     * started, progressed or succeeded; `false` when one was asked for or failed).
     */
    fun resolve(coordinates: String, repositories: List<RepositorySpec>, onTransfer: (String, Boolean) -> Unit): BackendResult
}

/** Settings that a [MavenBackend] is created with. */
internal data class BackendSettings(
    val localRepository: Path,
    val connectTimeoutMillis: Int,
    val requestTimeoutMillis: Int,
    val maven: MavenSettings = MavenSettings.NONE,
)

/**
 * A remote repository: [id] keys the local repository's metadata files, and is the id that a `<server>` or a
 * `<mirror>` of the Maven settings matches (see [RepositoryUrls.idOf]).
 */
internal data class RepositorySpec(val id: String, val url: String)

/** A jar (or other file) that resolution produced. */
internal data class ResolvedArtifact(
    val groupId: String,
    val artifactId: String,
    val version: String,
    val classifier: String,
    val extension: String,
    val file: File,
) {
    /** `group:artifact[:classifier]`: one version of it per session. */
    val key: String get() = listOf(groupId, artifactId, classifier).filter { it.isNotEmpty() }.joinToString(":")

    val coordinates: String get() = "$key:$version"
}

/** [DENIED]: the repository answered HTTP 401 or 403. */
internal enum class FailureKind { NOT_FOUND, UNREACHABLE, TIMEOUT, DENIED, OTHER }

internal sealed interface BackendResult {
    /**
     * The root first, then its dependencies. [repaired]: `group:artifact:version` of each broken copy in the local
     * repository that was deleted and fetched again.
     */
    data class Artifacts(val artifacts: List<ResolvedArtifact>, val repaired: List<String> = emptyList()) : BackendResult

    /**
     * @property artifact `group:artifact:version` of the artifact that failed (the root or a dependency).
     * @property repositories the URLs it failed in.
     * @property cause one line, e.g. `Connection refused`.
     * @property repositoryId the id of the repository (or mirror) that failed, when known.
     * @property status the HTTP status of a [FailureKind.DENIED] failure.
     * @property repaired as in [Artifacts]: the broken local copies deleted before it failed.
     */
    data class Failure(
        val kind: FailureKind,
        val artifact: String,
        val repositories: List<String>,
        val cause: String,
        val repositoryId: String? = null,
        val status: Int? = null,
        val repaired: List<String> = emptyList(),
    ) : BackendResult
}
