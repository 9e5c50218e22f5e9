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
 * @param maxDisplayBytes the rich data one display or cell value may carry (its MIME types other than
 *   `text/plain`, in bytes); past it, its text is kept with a notice (10,000,000 when null).
 */
public class HostSettings @JvmOverloads constructor(
    localRepository: String?,
    repositories: List<String>?,
    resolutionTimeoutMillis: Long?,
    mavenSettings: String?,
    maxDisplayBytes: Long? = null,
) {
    internal val maxDisplayBytes: Long = maxDisplayBytes ?: DisplayLimit.DEFAULT_MAX_BYTES

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
