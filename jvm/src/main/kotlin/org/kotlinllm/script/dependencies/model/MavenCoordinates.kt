package org.kotlinllm.script.dependencies.model

/**
 * Coordinates of a `@file:DependsOn`: `group:artifact` (latest version), `group:artifact:version`, or Maven's
 * longer forms `group:artifact:extension:version` and `group:artifact:extension:classifier:version`. The version
 * may be a range or `RELEASE`/`LATEST`, which Maven resolves.
 */
internal data class MavenCoordinates(
    val groupId: String,
    val artifactId: String,
    val version: String?,
    val extension: String? = null,
    val classifier: String? = null,
) {
    /** `group:artifact`, the key of [DependencyResolution.Resolved.resolvedVersions]. */
    val module: String get() = "$groupId:$artifactId"

    fun withVersion(version: String): MavenCoordinates = copy(version = version)

    /** The form maven-resolver parses (it requires a [version]), which is also the form the snippet wrote. */
    override fun toString(): String =
        listOfNotNull(groupId, artifactId, extension ?: classifier?.let { "jar" }, classifier, version).joinToString(":")

    companion object {
        private val NAME = Regex("[A-Za-z0-9_.\\-]+")

        /** The coordinates, or null when [text] is not of one of the accepted forms. */
        fun parse(text: String): MavenCoordinates? {
            val parts = text.trim().split(':')
            if (parts.any { it.isEmpty() || it.any(Char::isWhitespace) }) return null
            if (!NAME.matches(parts[0]) || parts.size < 2 || !NAME.matches(parts[1])) return null
            return when (parts.size) {
                2 -> MavenCoordinates(parts[0], parts[1], null)
                3 -> MavenCoordinates(parts[0], parts[1], parts[2])
                4 -> MavenCoordinates(parts[0], parts[1], parts[3], extension = parts[2])
                5 -> MavenCoordinates(parts[0], parts[1], parts[4], extension = parts[2], classifier = parts[3])
                else -> null
            }
        }
    }
}
