package org.kotlinllm.script.dependencies.maven

import io.github.oshai.kotlinlogging.KotlinLogging
import org.apache.maven.model.interpolation.ModelInterpolator
import org.eclipse.aether.ConfigurationProperties
import org.eclipse.aether.RepositoryException
import org.eclipse.aether.RepositorySystem
import org.eclipse.aether.RepositorySystemSession
import org.eclipse.aether.artifact.Artifact
import org.eclipse.aether.artifact.DefaultArtifact
import org.eclipse.aether.repository.LocalRepository
import org.eclipse.aether.repository.RemoteRepository
import org.eclipse.aether.repository.RepositoryPolicy
import org.eclipse.aether.supplier.RepositorySystemSupplier
import org.eclipse.aether.supplier.SessionBuilderSupplier
import org.eclipse.aether.transfer.AbstractTransferListener
import org.eclipse.aether.transfer.TransferEvent
import org.eclipse.aether.util.repository.SimpleArtifactDescriptorPolicy
import org.eclipse.aether.util.version.GenericVersionScheme
import org.kotlinllm.script.dependencies.model.BackendResult
import org.kotlinllm.script.dependencies.model.BackendSettings
import org.kotlinllm.script.dependencies.model.FailureKind
import org.kotlinllm.script.dependencies.model.MavenBackend
import org.kotlinllm.script.dependencies.model.RepositorySpec
import org.kotlinllm.script.dependencies.model.ResolvedArtifact
import kotlin.time.measureTimedValue

private val logger = KotlinLogging.logger {}

/**
 * [MavenBackend] on maven-resolver 2 (`RepositorySystemSupplier`, Maven 3 POM reading, Apache HttpClient transport).
 * Loaded only through `ResolverClassLoader`; see `ResolverLibrary`.
 */
internal class AetherBackend(private val settings: BackendSettings) : MavenBackend {
    private val system: RepositorySystem = RepositorySystemSupplier().get()
    private val versionScheme = GenericVersionScheme()

    override val centralUrl: String = centralRepositoryUrl()

    override val versionOrder: Comparator<String> =
        Comparator { a, b -> versionScheme.parseVersion(a).compareTo(versionScheme.parseVersion(b)) }

    override fun resolve(coordinates: String, repositories: List<RepositorySpec>, onTransfer: (String, Boolean) -> Unit): BackendResult {
        val (result, took) = measureTimedValue {
            newSession(onTransfer).use { session ->
                val copies = LocalCopies(settings.localRepository)
                try {
                    // the mirrors, proxies and credentials of the Maven settings, as Maven applies them
                    val remotes = system.newResolutionRepositories(session, repositories.map(::remoteRepository))
                    val root = DefaultArtifact(coordinates)
                    // a broken local copy is deleted and the resolution runs again (each copy once), fetching it anew
                    var artifacts: List<Artifact>
                    while (true) {
                        artifacts = try {
                            VariantResolution(system, session, remotes, root).resolve()
                        } catch (e: RepositoryException) {
                            if (copies.discardUnreadablePom(e)) continue
                            throw e
                        }
                        if (!copies.discardBrokenJars(artifacts)) break
                    }
                    val broken = copies.stillBroken(artifacts)
                    if (broken != null) {
                        BackendResult.Failure(
                            FailureKind.OTHER,
                            broken,
                            emptyList(),
                            "its jar is not a readable zip file, even as fetched again",
                        )
                    } else {
                        BackendResult.Artifacts(artifacts.mapNotNull(::resolvedArtifact), copies.repaired.toList())
                    }
                } catch (e: RepositoryException) {
                    FailureAnalysis.analyse(e, coordinates).copy(repaired = copies.repaired.toList())
                } catch (e: IllegalArgumentException) {
                    BackendResult.Failure(FailureKind.OTHER, coordinates, emptyList(), FailureAnalysis.oneLine(e))
                }
            }
        }
        logger.debug { "Resolved $coordinates from ${repositories.map { it.url }} in $took: $result" }
        return result
    }

    override fun close() {
        try {
            system.shutdown()
        } catch (e: RuntimeException) {
            // a resolution abandoned for silence may still hold its session; it ends by its own timeouts
            logger.debug(e) { "Maven resolver shut down with a resolution still running" }
        }
    }

    private fun newSession(onTransfer: (String, Boolean) -> Unit): RepositorySystemSession.CloseableSession =
        SessionBuilderSupplier(system).get()
            .also { SettingsSelectors.applyTo(it, settings.maven) }
            // "simple": a jar in the local repository is used whichever repository it came from
            .withLocalRepositories(LocalRepository(settings.localRepository, "simple"))
            .setSystemProperties(System.getProperties())
            .setConfigProperty(ConfigurationProperties.CONNECT_TIMEOUT, settings.connectTimeoutMillis)
            .setConfigProperty(ConfigurationProperties.REQUEST_TIMEOUT, settings.requestTimeoutMillis)
            .setConfigProperty(ConfigurationProperties.HTTP_RETRY_HANDLER_COUNT, 0)
            // only the session's repositories, not those of POMs (nor the super POM's Central)
            .setIgnoreArtifactDescriptorRepositories(true)
            // a missing POM means no dependencies, as in Maven; an unreadable one fails
            .setArtifactDescriptorPolicy(SimpleArtifactDescriptorPolicy(true, false))
            // an interactive session retries what failed before, instead of caching the failure for a day
            .setUpdatePolicy(RepositoryPolicy.UPDATE_POLICY_ALWAYS)
            .setTransferListener(TransferSignals(onTransfer))
            .build()

    private fun remoteRepository(spec: RepositorySpec): RemoteRepository =
        RemoteRepository.Builder(spec.id, "default", spec.url).build()

    private fun resolvedArtifact(artifact: Artifact): ResolvedArtifact? {
        val path = artifact.path ?: return null
        return ResolvedArtifact(
            groupId = artifact.groupId,
            artifactId = artifact.artifactId,
            version = artifact.version,
            classifier = artifact.classifier,
            extension = artifact.extension,
            file = path.toFile(),
        )
    }

    /** Tells which repository is being asked, and whether it answers. */
    private class TransferSignals(private val onTransfer: (String, Boolean) -> Unit) : AbstractTransferListener() {
        override fun transferInitiated(event: TransferEvent) = onTransfer(event.resource.repositoryUrl, false)
        override fun transferStarted(event: TransferEvent) = onTransfer(event.resource.repositoryUrl, true)
        override fun transferProgressed(event: TransferEvent) = onTransfer(event.resource.repositoryUrl, true)
        override fun transferSucceeded(event: TransferEvent) = onTransfer(event.resource.repositoryUrl, true)
        override fun transferFailed(event: TransferEvent) = onTransfer(event.resource.repositoryUrl, false)
    }

    private companion object {
        /** Maven Central as Maven's model builder defines it for the super POM, with Maven's own override property. */
        fun centralRepositoryUrl(): String =
            System.getProperty(ModelInterpolator.MAVEN_REPO_CENTRAL_KEY)?.takeIf { it.isNotBlank() }
                ?: ModelInterpolator.DEFAULT_MAVEN_REPO_CENTRAL_URL
    }
}
