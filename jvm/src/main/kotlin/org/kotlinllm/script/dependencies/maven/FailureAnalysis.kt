package org.kotlinllm.script.dependencies.maven

import org.eclipse.aether.collection.DependencyCollectionException
import org.eclipse.aether.resolution.ArtifactDescriptorException
import org.eclipse.aether.resolution.ArtifactResolutionException
import org.eclipse.aether.resolution.DependencyResolutionException
import org.eclipse.aether.spi.connector.transport.http.HttpTransporterException
import org.eclipse.aether.transfer.ArtifactNotFoundException
import org.eclipse.aether.transfer.ArtifactTransferException
import org.kotlinllm.script.dependencies.model.BackendResult
import org.kotlinllm.script.dependencies.model.FailureKind
import java.net.ConnectException
import java.net.NoRouteToHostException
import java.net.SocketTimeoutException
import java.net.UnknownHostException
import java.net.http.HttpTimeoutException
import java.util.IdentityHashMap

/** Turns maven-resolver's exceptions into one [BackendResult.Failure]: what failed, where, and why, in one line. */
internal object FailureAnalysis {

    fun analyse(error: Exception, coordinates: String): BackendResult.Failure {
        val transfers = transferExceptions(error)
        val broken = transfers.firstOrNull { it !is ArtifactNotFoundException }
        if (broken != null) {
            val cause = rootCause(broken)
            val repository = listOfNotNull(broken.repository?.url)
            val status = deniedStatus(broken)
            val kind = if (status != null) FailureKind.DENIED else kindOf(cause)
            return BackendResult.Failure(kind, coordinatesOf(broken), repository, oneLine(cause), broken.repository?.id, status)
        }
        val missing = transfers.firstOrNull()
        if (missing != null) {
            val artifact = coordinatesOf(missing)
            val repositories = transfers.filter { coordinatesOf(it) == artifact }.mapNotNull { it.repository?.url }.distinct()
            return BackendResult.Failure(FailureKind.NOT_FOUND, artifact, repositories, oneLine(missing))
        }
        return BackendResult.Failure(FailureKind.OTHER, coordinates, emptyList(), oneLine(rootCause(error)))
    }

    /** The first line of [error]'s message, or its class name when it has none. */
    fun oneLine(error: Throwable): String =
        error.message?.lineSequence()?.firstOrNull()?.trim()?.takeIf { it.isNotEmpty() } ?: error.javaClass.simpleName

    private fun coordinatesOf(error: ArtifactTransferException): String {
        val artifact = error.artifact ?: return "?"
        return listOf(artifact.groupId, artifact.artifactId, artifact.classifier, artifact.version)
            .filter { it.isNotEmpty() }.joinToString(":")
    }

    private fun kindOf(cause: Throwable): FailureKind = when (cause) {
        is SocketTimeoutException, is HttpTimeoutException -> FailureKind.TIMEOUT
        is ConnectException, is UnknownHostException, is NoRouteToHostException -> FailureKind.UNREACHABLE
        else -> FailureKind.OTHER
    }

    /** 401 or 403, when the transport was refused access; null otherwise. */
    private fun deniedStatus(error: Throwable): Int? =
        generateSequence(error) { it.cause.takeIf { cause -> cause !== it } }.take(MAX_CAUSES)
            .filterIsInstance<HttpTransporterException>().map { it.statusCode }.firstOrNull { it == 401 || it == 403 }

    private const val MAX_CAUSES = 20

    private fun rootCause(error: Throwable): Throwable {
        var current = error
        val seen = IdentityHashMap<Throwable, Unit>()
        while (true) {
            val next = current.cause ?: return current
            if (seen.put(current, Unit) != null) return current
            current = next
        }
    }

    /** Every [ArtifactTransferException] in [error]'s causes and in the results the resolver attached to them. */
    private fun transferExceptions(error: Throwable): List<ArtifactTransferException> {
        val found = mutableListOf<ArtifactTransferException>()
        val seen = IdentityHashMap<Throwable, Unit>()
        fun visit(e: Throwable?) {
            if (e == null || seen.put(e, Unit) != null) return
            when (e) {
                is ArtifactTransferException -> found += e
                is ArtifactResolutionException -> e.results.forEach { result -> result.exceptions.forEach(::visit) }
                is DependencyCollectionException -> e.result?.exceptions?.forEach(::visit)
                is DependencyResolutionException -> e.result?.collectExceptions?.forEach(::visit)
                is ArtifactDescriptorException -> e.result?.exceptions?.forEach(::visit)
            }
            visit(e.cause)
        }
        visit(error)
        return found
    }
}
