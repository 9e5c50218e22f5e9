package org.kotlinllm.script.dependencies

import org.kotlinllm.script.dependencies.model.ResolvedArtifact

/** What the committed snippets of a session declared and loaded. Used on the session thread only. */
internal class DependencyState {
    /** `@file:Repository` URLs of committed snippets, in order. */
    val repositories: MutableList<String> = mutableListOf()

    /** `group:artifact` to the version chosen for a version-less declaration. */
    val chosenVersions: MutableMap<String, String> = mutableMapOf()

    /** [ResolvedArtifact.key] to the artifact on the session's classpath. */
    val loaded: MutableMap<String, ResolvedArtifact> = mutableMapOf()

    /** [ResolvedArtifact.key] to the coordinates of the `@file:DependsOn` (or `%use`) artifact that brought it. */
    val loadedBy: MutableMap<String, String> = mutableMapOf()

    /** Coordinates of jars left out for the host's that a warning named: each is named once per session. */
    val hostProvided: MutableSet<String> = mutableSetOf()

    /** The version the session already uses for [module], if any. */
    fun versionOf(module: String): String? = chosenVersions[module] ?: loaded[module]?.version
}

/** What one snippet adds to a [DependencyState] once it compiled. */
internal class StateChanges(
    val repositories: List<String>,
    val chosenVersions: Map<String, String>,
    val loaded: List<ResolvedArtifact>,
    val loadedBy: Map<String, String>,
    val hostProvided: Set<String>,
) {
    fun applyTo(state: DependencyState) {
        repositories.filterNot { it in state.repositories }.forEach { state.repositories += it }
        chosenVersions.forEach { (module, version) -> state.chosenVersions.putIfAbsent(module, version) }
        loaded.forEach { state.loaded.putIfAbsent(it.key, it) }
        loadedBy.forEach { (key, requested) -> state.loadedBy.putIfAbsent(key, requested) }
        state.hostProvided += hostProvided
    }
}
