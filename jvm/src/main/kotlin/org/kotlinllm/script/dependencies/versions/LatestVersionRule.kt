package org.kotlinllm.script.dependencies.versions

/**
 * The spec's pip-like choice of a version for `@file:DependsOn("group:artifact")`, over the versions that the
 * repositories' `maven-metadata.xml` list, ordered by [order] (Maven's, from maven-resolver):
 * the highest stable version; a stable version with a qualifier that Maven orders after its release
 * (`0.8.0-0.6.x-compat`) gives way to that release when it is listed; without stable versions, the highest
 * pre-release; SNAPSHOTs never.
 */
internal class LatestVersionRule(private val order: Comparator<String>) {

    /** The chosen version, or null when [versions] has nothing but SNAPSHOTs. */
    fun choose(versions: Collection<String>): LatestVersion? {
        val candidates = versions.map(String::trim).filter { it.isNotEmpty() && !isSnapshot(it) }.distinct()
        val (preReleases, stable) = candidates.partition(::isPreRelease)
        if (stable.isNotEmpty()) {
            val releases = stable.filterNot { givesWay(it, stable) }
            return releases.maxWithOrNull(order)?.let { LatestVersion(it, preRelease = false) }
        }
        return preReleases.maxWithOrNull(order)?.let { LatestVersion(it, preRelease = true) }
    }

    /** A qualified version whose numeric release is listed too (by Maven equality: `0.8` is `0.8.0`). */
    private fun givesWay(version: String, stable: List<String>): Boolean {
        val release = RELEASE_PREFIX.find(version)?.value ?: return false
        if (release == version) return false
        return stable.any { it != version && order.compare(it, release) == 0 }
    }

    companion object {
        private val RELEASE_PREFIX = Regex("^\\d+(\\.\\d+)*")
        private val TOKEN_SEPARATORS = Regex("[.\\-_+]|(?<=\\d)(?=\\D)|(?<=\\D)(?=\\d)")
        private val SHORT_QUALIFIER = Regex("(?i)(?:^|[^a-z])[abm](?=\\d)")
        private val TIMESTAMPED_SNAPSHOT = Regex("-\\d{8}\\.\\d{6}-\\d+$")

        /** Words that mark a pre-release wherever Maven orders them (`preview`, `dev`, `eap` sort after the release). */
        private val PRE_RELEASE_WORDS = setOf(
            "alpha", "beta", "milestone", "rc", "cr", "preview", "pre", "dev", "eap", "ea", "nightly", "canary", "snapshot",
        )

        fun isSnapshot(version: String): Boolean =
            version.endsWith("-SNAPSHOT", ignoreCase = true) || TIMESTAMPED_SNAPSHOT.containsMatchIn(version)

        /** A keyword of [PRE_RELEASE_WORDS] as a token, or Maven's short `a1`, `b2`, `m3` (so `android` is not). */
        fun isPreRelease(version: String): Boolean =
            version.lowercase().split(TOKEN_SEPARATORS).any { it in PRE_RELEASE_WORDS } ||
                SHORT_QUALIFIER.containsMatchIn(version)
    }
}

/** A version chosen by [LatestVersionRule]; [preRelease] when no stable version was listed. */
internal data class LatestVersion(val version: String, val preRelease: Boolean)
