package org.kotlinllm.script.host

import org.kotlinllm.script.SessionConfiguration
import java.nio.file.Path
import kotlin.time.Duration.Companion.milliseconds

/**
 * The settings a host passes for a session, as plain Java values; each null (or not set) keeps the engine's default
 * ([SessionConfiguration]). Kotlin names the arguments; a Java or Python host (through JPype) sets them by name on a
 * [builder].
 *
 * @param localRepository the local Maven repository `@file:DependsOn` resolves into.
 * @param repositories the repositories used while no snippet declared one; empty means Maven Central.
 * @param resolutionTimeoutMillis how long a repository may stay silent before resolving fails.
 * @param mavenSettings the Maven settings file whose mirrors, proxies and credentials apply.
 * @param maxDisplayBytes the rich data one display or cell value may carry (its MIME types other than
 *   `text/plain`, in bytes); past it, its text is kept with a notice (10,000,000 when null).
 */
public class HostSettings(
    localRepository: String? = null,
    repositories: List<String>? = null,
    resolutionTimeoutMillis: Long? = null,
    mavenSettings: String? = null,
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

    /** The settings by name, for a host that cannot name a constructor's arguments; see [HostSettings]. */
    public class Builder internal constructor() {
        private var localRepository: String? = null
        private var repositories: List<String>? = null
        private var resolutionTimeoutMillis: Long? = null
        private var mavenSettings: String? = null
        private var maxDisplayBytes: Long? = null

        public fun localRepository(path: String?): Builder = apply { localRepository = path }

        public fun repositories(urls: List<String>?): Builder = apply { repositories = urls }

        public fun resolutionTimeoutMillis(millis: Long?): Builder = apply { resolutionTimeoutMillis = millis }

        public fun mavenSettings(path: String?): Builder = apply { mavenSettings = path }

        public fun maxDisplayBytes(bytes: Long?): Builder = apply { maxDisplayBytes = bytes }

        public fun build(): HostSettings =
            HostSettings(localRepository, repositories, resolutionTimeoutMillis, mavenSettings, maxDisplayBytes)
    }

    public companion object {
        /** A [Builder] with nothing set: the engine's defaults. */
        @JvmStatic
        public fun builder(): Builder = Builder()
    }
}
