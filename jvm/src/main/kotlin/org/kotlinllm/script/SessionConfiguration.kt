package org.kotlinllm.script

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
 * @property captureOutput whether what the snippets print goes to [ScriptSession.output] instead of the process's
 *   standard streams.
 */
public data class SessionConfiguration(
    val localRepository: Path = Path.of(System.getProperty("user.home"), ".m2", "repository"),
    val defaultRepositories: List<String> = emptyList(),
    val resolutionTimeout: Duration = 8.seconds,
    val captureOutput: Boolean = false,
)
