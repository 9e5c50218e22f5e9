package org.kotlinllm.script.dependencies

import org.kotlinllm.script.dependencies.model.MavenCoordinates
import org.kotlinllm.script.dependencies.model.Messages
import org.kotlinllm.script.dependencies.model.ResolvedArtifact
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange

/**
 * One artifact a snippet asked for (`@file:DependsOn`, `%use`): its [coordinates] with the version resolved, and
 * where it was declared. [isRoot] tells that artifact itself (or its JVM variant) from its dependencies.
 */
internal class Requested(val coordinates: MavenCoordinates, val range: SourceRange) {
    private var root: String? = null

    fun isRoot(artifact: ResolvedArtifact): Boolean = artifact.key == root

    /** The artifacts resolved for it: the root first (or its JVM variant), then its dependencies. */
    fun resolvedAs(artifacts: List<ResolvedArtifact>): List<Pair<ResolvedArtifact, Requested>> {
        root = artifacts.firstOrNull()?.key
        return artifacts.map { it to this }
    }
}

/**
 * The dependencies that need a newer major or minor version than the one that stays in use, as one warning per
 * requested artifact and cause, each with what to do: a conflict is rare and can break the library, so it is said
 * where a person or an agent reads first, and grouped so that a library with many such dependencies is one warning.
 */
internal class VersionConflicts {
    private val withSession = linkedMapOf<Requested, MutableList<Pair<ResolvedArtifact, String>>>()
    private val loadedBy = linkedMapOf<Requested, MutableSet<String>>()
    private val withHost = linkedMapOf<Requested, MutableList<Pair<ResolvedArtifact, String>>>()

    /**
     * [artifact], which [requested] needs, is older ([loaded]) in this session, or in an earlier request of the
     * snippet: the one of [broughtBy], the coordinates that loaded it.
     */
    fun session(requested: Requested, artifact: ResolvedArtifact, loaded: String, broughtBy: String) {
        withSession.getOrPut(requested) { mutableListOf() } += artifact to loaded
        loadedBy.getOrPut(requested) { linkedSetOf() } += broughtBy
    }

    /** [artifact], which [requested] needs, is older ([provided]) in the host, whose classes always win. */
    fun host(requested: Requested, artifact: ResolvedArtifact, provided: String) {
        withHost.getOrPut(requested) { mutableListOf() } += artifact to provided
    }

    fun diagnostics(): List<Diagnostic> =
        withSession.map { (requested, conflicts) ->
            val hint = Messages.loadFirst(requested.coordinates, loadedBy[requested].orEmpty())
            warning(Messages.olderInSession(requested.coordinates, conflicts), requested, hint)
        } + withHost.map { (requested, conflicts) ->
            warning(Messages.olderInHost(requested.coordinates, conflicts), requested, Messages.olderBuild(requested.coordinates))
        }

    private fun warning(message: String, requested: Requested, hint: String) =
        Diagnostic(Severity.WARNING, message, requested.range, hint)
}
