package org.kotlinllm.script.dependencies.maven

import org.eclipse.aether.RepositorySystem
import org.eclipse.aether.RepositorySystemSession
import org.eclipse.aether.artifact.Artifact
import org.eclipse.aether.artifact.DefaultArtifact
import org.eclipse.aether.collection.CollectRequest
import org.eclipse.aether.graph.Dependency
import org.eclipse.aether.graph.Exclusion
import org.eclipse.aether.repository.RemoteRepository
import org.eclipse.aether.resolution.ArtifactRequest
import org.eclipse.aether.resolution.ArtifactResolutionException
import org.eclipse.aether.resolution.DependencyRequest
import org.eclipse.aether.resolution.DependencyResolutionException
import org.eclipse.aether.util.artifact.JavaScopes
import org.eclipse.aether.util.filter.DependencyFilterUtils
import org.kotlinllm.script.dependencies.gradle.GradleModuleMetadata
import java.io.IOException
import kotlin.io.path.readText

/**
 * One artifact and its compile and runtime dependencies, with every Kotlin Multiplatform module in it replaced by its
 * JVM variant, as Gradle resolves them: a multiplatform root's POM names no JVM classes (its jar holds common metadata,
 * or it has none), its Gradle module metadata does. Each resolution that finds such a module reads that module's
 * metadata and resolves again with the module excluded and its JVM variant added, until none is left.
 *
 * The snippet is the project and the artifact its direct dependency, as in a POM: so optional and test dependencies
 * of the artifact are left out, as Maven does.
 */
internal class VariantResolution(
    private val system: RepositorySystem,
    private val session: RepositorySystemSession,
    private val remotes: List<RemoteRepository>,
    private val root: Artifact,
) {
    /** `group:artifact` of each multiplatform module found, to the coordinates of its JVM variant. */
    private val jvmVariants = linkedMapOf<String, String>()

    /** The modules whose metadata was read, so that each is read once. */
    private val read = hashSetOf<String>()

    /** The root first (or its JVM variant), then its dependencies. Throws what maven-resolver throws. */
    fun resolve(): List<Artifact> {
        repeat(MAX_PASSES) {
            val artifacts = try {
                resolveOnce()
            } catch (e: DependencyResolutionException) {
                if (key(root) !in jvmVariants && rootIsMissing(e) && learn(root)) return@repeat
                throw e
            }
            val metadataJars = artifacts.filter { artifact ->
                artifact.extension == "jar" && key(artifact) !in jvmVariants &&
                    artifact.path?.let { GradleModuleMetadata.isMetadataJar(it.toFile()) } == true
            }
            if (metadataJars.map(::learn).none { it }) return artifacts
        }
        return resolveOnce()
    }

    private fun resolveOnce(): List<Artifact> {
        val exclusions = jvmVariants.keys.map { key ->
            val (groupId, artifactId) = key.split(':', limit = 2)
            Exclusion(groupId, artifactId, "*", "*")
        }
        val first = jvmVariants[key(root)]?.let(::DefaultArtifact) ?: root
        val others = jvmVariants.filterKeys { it != key(root) }.values.map(::DefaultArtifact)
        val direct = (listOf(first) + others).map { Dependency(it, JavaScopes.COMPILE, false, exclusions) }
        val request = DependencyRequest(
            CollectRequest(direct, emptyList(), remotes),
            DependencyFilterUtils.classpathFilter(JavaScopes.RUNTIME),
        )
        return system.resolveDependencies(session, request).artifactResults.mapNotNull { it.artifact }
    }

    /** Whether the root's own file was not found (not a dependency's, not a transfer that broke). */
    private fun rootIsMissing(error: DependencyResolutionException): Boolean =
        error.result?.artifactResults.orEmpty().any { result ->
            val requested = result.request.artifact
            result.isMissing && requested.groupId == root.groupId && requested.artifactId == root.artifactId
        }

    /** Reads the module metadata of [artifact]; whether it named a JVM variant elsewhere. */
    private fun learn(artifact: Artifact): Boolean {
        val version = artifact.baseVersion
        if (!read.add("${key(artifact)}:$version")) return false
        val metadata = DefaultArtifact(artifact.groupId, artifact.artifactId, "", "module", version)
        val text = try {
            system.resolveArtifact(session, ArtifactRequest(metadata, remotes, null)).artifact.path?.readText()
        } catch (_: ArtifactResolutionException) {
            null // a POM-only module: nothing to follow
        } catch (_: IOException) {
            null
        } ?: return false
        val variant = GradleModuleMetadata.jvmRuntimeModule(text) ?: return false
        jvmVariants[key(artifact)] = variant
        return true
    }

    private fun key(artifact: Artifact): String = "${artifact.groupId}:${artifact.artifactId}"

    private companion object {
        /** More than any real library nests multiplatform modules; a cycle in their metadata ends here. */
        const val MAX_PASSES = 8
    }
}
