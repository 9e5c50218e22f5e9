package org.kotlinllm.script

import java.nio.file.Path
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/**
 * Settings of a [ScriptSession] beyond its properties.
 *
 * @property localRepository the local Maven repository that `@file:DependsOn` resolves into.
 * @property defaultRepositories the repositories used while no snippet declared one with `@file:Repository`;
 *   empty means Maven Central.
 * @property resolutionTimeout how long a repository may stay silent before resolving fails.
 * @property captureOutput whether what the snippets print goes to [ScriptSession.output] instead of the process's
 *   standard streams.
 * @property mavenSettings the Maven settings file whose mirrors, proxies and server credentials apply to resolving
 *   `@file:DependsOn` artifacts; null means the system property `kotlinllm.maven.settings`, else `~/.m2/settings.xml`
 *   when it exists. Its `localRepository` is not used: [localRepository] is. Server and mirror ids match a
 *   repository's id: `central` for Maven Central, and for a `@file:Repository` URL that URL with every character
 *   outside `A-Z a-z 0-9 . _ -` replaced by `_`. The `maven-metadata.xml` read for version-less coordinates ignores
 *   these settings.
 */
public data class SessionConfiguration(
    val localRepository: Path = Path.of(System.getProperty("user.home"), ".m2", "repository"),
    val defaultRepositories: List<String> = emptyList(),
    val resolutionTimeout: Duration = 8.seconds,
    val captureOutput: Boolean = false,
    val mavenSettings: Path? = null,
) {
    public companion object {
        /**
         * A configuration for Java and Python callers, which cannot pass a [Duration]: null or a negative value
         * keeps the default of a setting.
         */
        @JvmStatic
        public fun forHost(
            localRepository: Path?,
            defaultRepositories: List<String>?,
            resolutionTimeoutMillis: Long,
            captureOutput: Boolean,
        ): SessionConfiguration {
            val defaults = SessionConfiguration()
            return SessionConfiguration(
                localRepository = localRepository ?: defaults.localRepository,
                defaultRepositories = defaultRepositories ?: defaults.defaultRepositories,
                resolutionTimeout = if (resolutionTimeoutMillis < 0) defaults.resolutionTimeout else resolutionTimeoutMillis.milliseconds,
                captureOutput = captureOutput,
            )
        }
    }
}
