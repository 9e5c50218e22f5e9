package org.kotlinllm.script.dependencies.maven

import org.apache.maven.model.building.ModelBuildingException
import org.eclipse.aether.RepositoryException
import org.eclipse.aether.artifact.Artifact
import org.eclipse.aether.collection.DependencyCollectionException
import org.eclipse.aether.resolution.ArtifactDescriptorException
import org.eclipse.aether.resolution.DependencyResolutionException
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path
import java.util.IdentityHashMap
import java.util.zip.ZipException
import java.util.zip.ZipFile

/**
 * The local repository's copies that a resolution found broken: a jar that does not open (a download cut short, a
 * disk error) or a POM that does not parse. Maven uses a local file as it is, whichever state it is in, and never
 * fetches it again; the engine deletes it (with its checksum files), so that the next resolution fetches it anew.
 */
internal class LocalCopies(private val localRepository: Path) {
    /** `group:artifact:version` of each copy deleted, as the diagnostics name it. */
    val repaired: MutableList<String> = mutableListOf()

    /** Deletes the jars among [artifacts] that do not open; whether there was one not repaired before. */
    fun discardBrokenJars(artifacts: List<Artifact>): Boolean =
        artifacts.filter { it.extension == "jar" && it.path?.let(::opens) == false }.map { discard(it, it.path) }.any { it }

    /** `group:artifact:version` of a jar among [artifacts] that does not open even as fetched again, if any. */
    fun stillBroken(artifacts: List<Artifact>): String? =
        artifacts.firstOrNull { it.extension == "jar" && it.path?.let(::opens) == false }
            ?.let { "${it.groupId}:${it.artifactId}:${it.baseVersion}" }

    /** Deletes the local POM that [error] could not read; whether there was one not repaired before. */
    fun discardUnreadablePom(error: RepositoryException): Boolean {
        val artifact = unreadableDescriptor(error) ?: return false
        val pom = localRepository.resolve(artifact.groupId.replace('.', '/')).resolve(artifact.artifactId)
            .resolve(artifact.baseVersion).resolve("${artifact.artifactId}-${artifact.baseVersion}.pom")
        return Files.isRegularFile(pom) && discard(artifact, pom)
    }

    private fun discard(artifact: Artifact, file: Path): Boolean {
        val coordinates = "${artifact.groupId}:${artifact.artifactId}:${artifact.baseVersion}"
        // once only: a copy that is broken again as fetched is broken in the repository, and resolution says so
        if (coordinates in repaired) return false
        repaired += coordinates
        for (suffix in listOf("", ".sha1", ".sha256", ".sha512", ".md5")) {
            Files.deleteIfExists(file.resolveSibling(file.fileName.toString() + suffix))
        }
        return true
    }

    private fun opens(jar: Path): Boolean =
        try {
            ZipFile(jar.toFile()).use { true }
        } catch (_: ZipException) {
            false
        } catch (_: IOException) {
            false
        }

    /** The artifact whose POM [error] (or an error it carries) failed to parse, when that is what failed. */
    private fun unreadableDescriptor(error: Throwable): Artifact? {
        val seen = IdentityHashMap<Throwable, Unit>()
        fun visit(e: Throwable?): Artifact? {
            if (e == null || seen.put(e, Unit) != null) return null
            if (e is ArtifactDescriptorException && e.result?.exceptions.orEmpty().any(::isModelError)) {
                return e.result?.request?.artifact
            }
            val carried = when (e) {
                is DependencyResolutionException -> e.result?.collectExceptions.orEmpty()
                is DependencyCollectionException -> e.result?.exceptions.orEmpty()
                else -> emptyList()
            }
            return carried.firstNotNullOfOrNull(::visit) ?: visit(e.cause)
        }
        return visit(error)
    }

    /** A POM that does not parse (a missing one is no error: the descriptor policy allows it). */
    private fun isModelError(error: Throwable): Boolean =
        generateSequence(error) { it.cause.takeIf { cause -> cause !== it } }.take(MAX_CAUSES).any { it is ModelBuildingException }

    private companion object {
        const val MAX_CAUSES = 20
    }
}
