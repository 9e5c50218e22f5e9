package org.kotlinllm.script

import org.kotlinllm.script.dependencies.DependencySettings
import org.kotlinllm.script.dependencies.SANDBOX_NETWORK_ENV
import java.nio.file.Path
import kotlin.time.Duration
import kotlin.time.Duration.Companion.seconds

/**
 * Settings of a [ScriptSession] beyond its properties.
 *
 * @property localRepository the local Maven repository that `@file:DependsOn` resolves into.
 * @property defaultRepositories the repositories used while no snippet declared one with `@file:Repository`;
 *   empty means Maven Central.
 * @property resolutionTimeout how long a repository may stay silent before resolving fails.
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
    val mavenSettings: Path? = null,
)

/** What of the configuration the resolution of `@file:DependsOn` uses, with the network mode of a sandbox around it. */
internal fun SessionConfiguration.dependencySettings(): DependencySettings =
    DependencySettings(localRepository, defaultRepositories, resolutionTimeout, mavenSettings, System.getenv(SANDBOX_NETWORK_ENV))
