package org.kotlinllm.script.host

import org.kotlinllm.script.SessionConfiguration
import java.nio.file.Path
import kotlin.time.Duration.Companion.milliseconds

/**
 * The settings a host passes for a session, as plain Java values; each null keeps the engine's default
 * ([SessionConfiguration]).
 *
 * @param localRepository the local Maven repository `@file:DependsOn` resolves into.
 * @param repositories the repositories used while no snippet declared one; empty means Maven Central.
 * @param resolutionTimeoutMillis how long a repository may stay silent before resolving fails.
 * @param mavenSettings the Maven settings file whose mirrors, proxies and credentials apply.
 */
public class HostSettings(
    localRepository: String?,
    repositories: List<String>?,
    resolutionTimeoutMillis: Long?,
    mavenSettings: String?,
) {
    internal val configuration: SessionConfiguration = SessionConfiguration().let { defaults ->
        SessionConfiguration(
            localRepository = localRepository?.let { Path.of(it) } ?: defaults.localRepository,
            defaultRepositories = repositories?.toList() ?: defaults.defaultRepositories,
            resolutionTimeout = resolutionTimeoutMillis?.milliseconds ?: defaults.resolutionTimeout,
            mavenSettings = mavenSettings?.let { Path.of(it) } ?: defaults.mavenSettings,
        )
    }

    override fun toString(): String = "HostSettings($configuration)"
}
