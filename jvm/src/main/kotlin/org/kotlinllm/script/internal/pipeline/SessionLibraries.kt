package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.dependencies.DeclaredAnnotations
import org.kotlinllm.script.dependencies.DependencyResolution
import org.kotlinllm.script.dependencies.SessionDependencies
import org.kotlinllm.script.dependencies.model.Messages
import org.kotlinllm.script.dependencies.versions.LatestVersionRule
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.diagnostics.SourceText
import org.kotlinllm.script.internal.compiler.ReplCompilerHost
import org.kotlinllm.script.internal.compiler.source.UseMagic
import org.kotlinllm.script.internal.routing.RunClock

/**
 * The libraries a session loaded with `%use`: their default imports, which every later snippet has, and the loading
 * of those of a failing snippet that can load without it.
 */
internal class SessionLibraries(
    private val dependencies: SessionDependencies,
    private val compilerHost: ReplCompilerHost,
    /** Leaves out of the snippet's run time what it waits for: its dependencies to resolve. */
    private val clock: RunClock,
) {
    private val loadedImports = linkedSetOf<String>()

    /** The named options of each library `%use` loaded (`%use dataframe(enableExperimentalCsv=true)`), by its name. */
    private val options = HashMap<String, Map<String, String>>()

    /** The options `%use` gave library [name], which its own notebook integration receives. */
    fun optionsOf(name: String): Map<String, String> = options[name].orEmpty()

    /** The default imports of the libraries loaded so far. */
    val imports: Set<String> get() = loadedImports

    /** Later snippets get [imports] by default (a library's integration gave them). */
    fun addImports(imports: Collection<String>) {
        loadedImports += imports
    }

    /** The libraries of [used] are loaded: later snippets get their default imports. */
    fun loaded(used: UseMagic.Used?) {
        used ?: return
        loadedImports += used.imports
        for (library in used.libraries) {
            options[library.name] = library.options.mapNotNull { option -> option.name?.let { it to option.value } }.toMap()
        }
    }

    /**
     * Loads the libraries of a failing snippet's `%use` lines that are not at one of its [errors], as a snippet that
     * compiled would (their jars, versions and default imports stay for the later snippets), so that one unknown or
     * unresolvable library of a line does not hold back the others; nothing else of the snippet runs. The notes to
     * show with the errors: the versions chosen and what loaded.
     */
    fun loadAlone(used: UseMagic.Used, errors: List<Diagnostic>, shown: SourceText): List<Diagnostic> {
        val failed = errors.mapNotNull { it.range }.toSet()
        val loadable = used.libraries.filter { it.range !in failed }
        if (loadable.isEmpty()) return emptyList()
        val declared = DeclaredAnnotations(loadable.flatMap { it.dependencies }, emptyList(), emptyList())
        val resolution = try {
            clock.waiting { dependencies.resolve(declared) }
        } catch (_: InterruptedException) {
            return emptyList()
        }
        val notes = when (resolution) {
            is DependencyResolution.Failed -> return emptyList() // each failed with the others already, and said so
            is DependencyResolution.Resolved -> {
                resolution.commit()
                compilerHost.addLibraries(resolution.classpath)
                val ranges = loadable.flatMap { library -> library.dependencies.map { it.value to library.range } }.toMap()
                versionNotes(resolution.resolvedVersions, shown, ranges) + resolution.warnings
            }
            DependencyResolution.None -> emptyList()
        }
        loadedImports += loadable.flatMap { it.imports }
        val loaded = Diagnostic(Severity.WARNING, UseMagic.loadedAlone(loadable.map { it.name }), loadable.first().range)
        return notes + loaded
    }

    internal companion object {
        /**
         * "Resolved 'g:a' to …" at the `@file:DependsOn` (or `%use` line, [used]) naming it: a failed snippet tells the
         * versions it chose, as the LLM might not know their API.
         */
        fun versionNotes(versions: Map<String, String>, source: SourceText, used: Map<String, SourceRange>): List<Diagnostic> =
            versions.map { (coordinates, version) ->
                val at = source.text.indexOf("\"$coordinates\"")
                val range = used[coordinates] ?: if (at < 0) null else source.range(at, at + coordinates.length + 2)
                Diagnostic(Severity.WARNING, Messages.latestVersion(coordinates, version, LatestVersionRule.isPreRelease(version)), range)
            }
    }
}
