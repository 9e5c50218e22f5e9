package org.kotlinllm.script.dependencies

import org.kotlinllm.script.diagnostics.Diagnostic
import java.io.File

/** What [SessionDependencies.resolve] found for one snippet. */
internal sealed interface DependencyResolution {
    /** The snippet has no `@file:DependsOn` or `@file:Repository` annotations. */
    data object None : DependencyResolution

    /**
     * The snippet's dependencies resolved.
     *
     * @property classpath jars new to the session, to add to this snippet's compilation (host duplicates removed).
     * @property resolvedVersions `"group:artifact"` to the version chosen for the version-less coordinates of this snippet.
     * @property warnings version conflicts first (with what to do), then e.g. a requested jar left out for the host's,
     *   each located at its `@file:DependsOn` entry or `%use` name.
     * @property commit to call when the snippet compiled: its repositories, versions and jars stay for later snippets.
     */
    class Resolved(
        val classpath: List<File>,
        val resolvedVersions: Map<String, String>,
        val warnings: List<Diagnostic>,
        val commit: () -> Unit,
    ) : DependencyResolution

    /** Errors located at the annotation entries, with the versions chosen for version-less coordinates as warnings. */
    class Failed(val diagnostics: List<Diagnostic>) : DependencyResolution
}
