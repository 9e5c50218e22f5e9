package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.dependencies.DeclaredAnnotations
import org.kotlinllm.script.dependencies.DependencyResolution
import org.kotlinllm.script.dependencies.SessionDependencies
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.internal.compiler.source.DependencyAnnotations
import org.kotlinllm.script.internal.routing.RunClock

/**
 * Resolves the snippet's `@file:DependsOn` and `%use` dependencies before it compiles (the compiler needs their
 * jars); they are added to the session only when the snippet runs ([DependencyResolution.Resolved.commit]). A
 * resolution that fails ends the snippet with its errors, after loading the snippet's libraries that can load alone.
 */
internal class ResolutionStage(
    private val dependencies: SessionDependencies,
    private val libraries: SessionLibraries,
    private val clock: RunClock,
) {

    fun resolve(read: ReadSnippet): Step<ResolvedSnippet> {
        val used = read.used
        val declared = DependencyAnnotations.read(read.parsed.file).let { annotations ->
            if (used ==
                null
            ) annotations else DeclaredAnnotations(
                used.dependencies + annotations.dependencies,
                annotations.repositories,
                annotations.problems,
            )
        }
        val resolution = try {
            clock.waiting { dependencies.resolve(declared) }
        } catch (_: InterruptedException) {
            return Step.Done(SnippetRun.compilationError("${read.fileName}: error: resolving the dependencies was cancelled"))
        }
        val resolved = when (resolution) {
            is DependencyResolution.Failed -> {
                val errors = resolution.diagnostics.filter { it.severity == Severity.ERROR }
                val loaded = if (read.request.mode != Mode.RUN ||
                    used == null
                ) emptyList() else libraries.loadAlone(used, errors, read.shown)
                return Step.Done(SnippetRun.compilationError(read.fileName, read.shown, resolution.diagnostics + loaded))
            }
            is DependencyResolution.Resolved -> resolution
            DependencyResolution.None -> null
        }
        val usedRanges = used?.dependencies.orEmpty().associate { it.value to it.range }
        val versions = resolved?.let { SessionLibraries.versionNotes(it.resolvedVersions, read.shown, usedRanges) }.orEmpty()
        val imports = libraries.imports + used?.imports.orEmpty() + read.request.extraImports
        return Step.Next(ResolvedSnippet(read, resolved, read.magicNotes + versions, imports.distinct()))
    }
}
