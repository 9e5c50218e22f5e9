package org.kotlinllm.script.dependencies.model

import kotlin.time.Duration

/** The texts of the dependency diagnostics: one line each, the cause without stack traces. */
internal object Messages {
    fun latestVersion(module: String, version: String, preRelease: Boolean): String {
        val kind = if (preRelease) "pre-release" else "stable"
        return "Resolved '$module' to its latest $kind version '$version'"
    }

    fun sessionVersion(module: String, version: String): String =
        "Resolved '$module' to version '$version', which this session already uses"

    fun invalidCoordinates(text: String): String =
        "Invalid Maven coordinates '$text': expected 'group:artifact:version', or 'group:artifact' for its latest version"

    fun invalidRepository(text: String): String =
        "Invalid repository '$text': expected an http://, https:// or file: URL, or an existing directory"

    fun notLiteral(annotation: String): String =
        "The arguments of @file:$annotation must be string literals, without templates"

    fun optionsIgnored(annotation: String): String =
        "The options of @file:$annotation are not supported and were ignored"

    fun resolverMissing(cause: String): String = "Cannot resolve dependencies: $cause"

    fun notFound(root: String, artifact: String, isRoot: Boolean, repositories: List<String>): String {
        val where = repositories.joinToString(", ")
        return if (isRoot) "Cannot resolve '$root': not found in $where"
        else "Cannot resolve '$root': its dependency '$artifact' was not found in $where"
    }

    fun noVersions(module: String, repositories: List<String>): String =
        "Cannot resolve '$module': no maven-metadata.xml lists its versions in ${repositories.joinToString(", ")}"

    fun onlySnapshots(module: String, snapshots: List<String>): String =
        "Cannot resolve '$module': only SNAPSHOT versions are listed (${snapshots.joinToString(", ")}); declare one with its version"

    fun unreachable(subject: String, repository: String, cause: String): String =
        "Cannot resolve '$subject': cannot connect to $repository: $cause"

    fun timedOut(subject: String, repository: String, timeout: Duration): String =
        "Cannot resolve '$subject': $repository did not answer within ${seconds(timeout)}"

    /**
     * [repository] answered [status]; in a sandbox of network mode `maven` ([sandboxNetwork]) a 403 is its egress
     * proxy's refusal of a repository the session was not configured with (the proxy answers nothing else).
     */
    fun denied(subject: String, repository: String, repositoryId: String, status: Int, sandboxNetwork: String? = null): String =
        if (sandboxNetwork == "maven" && status == 403) {
            "Cannot resolve '$subject': the sandbox refused $repository (--network maven reaches only the session's " +
                "Maven repositories); configure it for the session (--repository URL) or start the session with --network all"
        } else {
            "Cannot resolve '$subject': $repository denied access (HTTP $status); " +
                "give its credentials in a <server> with the id '$repositoryId' of the Maven settings"
        }

    fun settingsMissing(file: String): String = "Cannot resolve dependencies: the Maven settings file $file does not exist"

    fun settingsUnreadable(file: String, cause: String): String =
        "Cannot resolve dependencies: the Maven settings file $file is unreadable: $cause"

    fun failed(subject: String, repository: String?, cause: String): String =
        if (repository == null) "Cannot resolve '$subject': $cause" else "Cannot resolve '$subject' from $repository: $cause"

    fun multiplatformHint(coordinates: MavenCoordinates): String {
        val jvm = coordinates.copy(artifactId = coordinates.artifactId + "-jvm")
        return "'$coordinates' has a POM but no jar: for a Kotlin Multiplatform library, " +
            "depend on its JVM artifact, e.g. @file:DependsOn(\"$jvm\")"
    }

    fun providedByHost(artifact: ResolvedArtifact, provider: String): String =
        "Left out '${artifact.coordinates}': the host provides its classes ($provider), which are used instead"

    fun alreadyLoaded(artifact: ResolvedArtifact, loadedVersion: String): String =
        "Left out '${artifact.coordinates}': this session already loaded version '$loadedVersion', which is used instead"

    fun repairedCopy(coordinates: String, localRepository: String): String =
        "Fetched '$coordinates' again: its copy in the local repository $localRepository was broken " +
            "(a jar that does not open or a POM that does not parse, e.g. a download cut short)"

    /** [requested] needs newer versions of [conflicts] (each with the version that stays) than this session loaded. */
    fun olderInSession(requested: MavenCoordinates, conflicts: List<Pair<ResolvedArtifact, String>>): String =
        "Version conflict: '$requested' needs newer versions than this session loaded before, which stay in use: " +
            listed(conflicts, "loaded") + "; $NEWER_CALLS"

    /**
     * Loading the newer versions first is what makes them win (the older ones are then left out without a word):
     * [requested] before [loadedBy], the coordinates that loaded the older ones.
     */
    fun loadFirst(requested: MavenCoordinates, loadedBy: Collection<String>): String =
        "to use the newer versions, restart the kernel and run @file:DependsOn(\"$requested\") before loading " +
            loadedBy.joinToString(", ") { "'$it'" }

    /** [requested] needs newer versions of [conflicts] (each with the host's version) than the host provides. */
    fun olderInHost(requested: MavenCoordinates, conflicts: List<Pair<ResolvedArtifact, String>>): String =
        "Version conflict: '$requested' needs newer versions than the host provides, which no dependency can replace: " +
            listed(conflicts, "host") + "; $NEWER_CALLS"

    fun olderBuild(requested: MavenCoordinates): String =
        "if they do, use an older version of '${requested.module}', built against the host's versions or older ones"

    private fun listed(conflicts: List<Pair<ResolvedArtifact, String>>, whose: String): String =
        conflicts.joinToString(", ") { (artifact, version) -> "'${artifact.coordinates}' ($whose: $version)" }

    private const val NEWER_CALLS: String = "calls into their newer API may fail with NoSuchMethodError or NoClassDefFoundError"

    private fun seconds(duration: Duration): String =
        if (duration.inWholeMilliseconds % 1000 == 0L) "${duration.inWholeSeconds} s" else "${duration.inWholeMilliseconds} ms"
}
