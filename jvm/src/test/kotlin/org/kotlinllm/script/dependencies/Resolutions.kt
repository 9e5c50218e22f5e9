package org.kotlinllm.script.dependencies

import org.kotlinllm.script.diagnostics.Diagnostic
import kotlin.test.assertIs
import kotlin.test.fail

/** Resolves [code] and expects it to resolve. */
internal fun SessionDependencies.resolved(code: String): DependencyResolution.Resolved {
    val result = resolve(Snippets.declared(code))
    if (result is DependencyResolution.Failed) fail("failed: ${result.diagnostics}")
    return assertIs<DependencyResolution.Resolved>(result)
}

/** Resolves [code] and expects it to fail; its diagnostics. */
internal fun SessionDependencies.failed(code: String): List<Diagnostic> =
    assertIs<DependencyResolution.Failed>(resolve(Snippets.declared(code))).diagnostics

/** The file names of the jars a resolution adds. */
internal fun DependencyResolution.Resolved.names(): List<String> = classpath.map { it.name }
