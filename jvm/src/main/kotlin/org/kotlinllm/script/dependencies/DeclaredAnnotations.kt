package org.kotlinllm.script.dependencies

import org.kotlinllm.script.diagnostics.SourceRange
import java.nio.file.Path
import kotlin.time.Duration

/** One string of a `@file:DependsOn` or `@file:Repository`, with the range that diagnostics about it mark. */
internal data class DeclaredValue(val value: String, val range: SourceRange)

/** An argument that is not a plain string literal, or an option that is not supported. */
internal data class DeclarationProblem(val annotation: String, val range: SourceRange, val isError: Boolean)

/** The `@file:DependsOn` and `@file:Repository` annotations of a snippet, read from its syntax tree before it compiles. */
internal class DeclaredAnnotations(
    val dependencies: List<DeclaredValue>,
    val repositories: List<DeclaredValue>,
    val problems: List<DeclarationProblem>,
) {
    val isEmpty: Boolean get() = dependencies.isEmpty() && repositories.isEmpty() && problems.isEmpty()

    companion object {
        const val DEPENDS_ON: String = "DependsOn"
        const val REPOSITORY: String = "Repository"
    }
}

/**
 * The settings of dependency resolution: where artifacts go, the default repositories, the timeout, Maven's settings,
 * and the network mode of the sandbox the session runs in ([SANDBOX_NETWORK_ENV]; null: none), which words a refusal.
 */
internal class DependencySettings(
    val localRepository: Path,
    val defaultRepositories: List<String>,
    val resolutionTimeout: Duration,
    val mavenSettings: Path?,
    val sandboxNetwork: String? = null,
)

/** The variable a kotlin-llm sandbox sets inside to its network mode (`maven`, `none`, `all`). */
internal const val SANDBOX_NETWORK_ENV: String = "KOTLIN_LLM_SANDBOX_NETWORK"
