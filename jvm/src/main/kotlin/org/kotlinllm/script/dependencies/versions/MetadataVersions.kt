package org.kotlinllm.script.dependencies.versions

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.dependencies.model.FailureKind
import org.w3c.dom.Element
import java.io.ByteArrayInputStream
import java.net.ConnectException
import java.net.URI
import java.net.UnknownHostException
import java.net.http.HttpClient
import java.net.http.HttpConnectTimeoutException
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.nio.file.Files
import java.nio.file.NoSuchFileException
import java.nio.file.Path
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import javax.xml.XMLConstants
import javax.xml.parsers.DocumentBuilderFactory
import kotlin.time.Duration
import kotlin.time.measureTimedValue
import kotlin.time.toJavaDuration

private val logger = KotlinLogging.logger {}

/** What one repository's `maven-metadata.xml` said about a module. */
internal sealed interface MetadataAnswer {
    val repository: String

    data class Versions(override val repository: String, val versions: List<String>) : MetadataAnswer
    data class NotFound(override val repository: String) : MetadataAnswer
    data class Failed(override val repository: String, val kind: FailureKind, val cause: String) : MetadataAnswer
}

/**
 * Reads `<versioning><versions>` of `maven-metadata.xml` directly, with the JDK's HTTP client and the session's
 * timeouts: no Maven settings (mirrors, proxies, credentials) apply here, as the spec says.
 */
internal class MetadataVersions(private val timeout: Duration) {
    private val client: HttpClient = HttpClient.newBuilder()
        .connectTimeout(timeout.toJavaDuration())
        .followRedirects(HttpClient.Redirect.NORMAL)
        .build()

    /** The answers of all [repositories], asked in parallel. */
    fun read(groupId: String, artifactId: String, repositories: List<String>): List<MetadataAnswer> {
        val (answers, took) = measureTimedValue {
            val pending = repositories.map { repository -> repository to ask(repository, metadataPath(groupId, artifactId)) }
            pending.map { (repository, answer) -> await(repository, answer) }
        }
        logger.debug { "maven-metadata.xml of $groupId:$artifactId in $took: $answers" }
        return answers
    }

    private fun metadataPath(groupId: String, artifactId: String): String =
        "${groupId.replace('.', '/')}/$artifactId/maven-metadata.xml"

    private fun ask(repository: String, path: String): CompletableFuture<MetadataAnswer> {
        val uri = URI.create(repository.trimEnd('/') + "/" + path)
        if (uri.scheme.equals("file", ignoreCase = true)) {
            return CompletableFuture.completedFuture(readFile(repository, Path.of(uri)))
        }
        val request = HttpRequest.newBuilder(uri).timeout(timeout.toJavaDuration()).GET().build()
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenApply { response ->
            when (response.statusCode()) {
                200 -> parse(repository, response.body())
                404, 410 -> MetadataAnswer.NotFound(repository)
                401, 403 -> MetadataAnswer.Failed(repository, FailureKind.DENIED, "HTTP ${response.statusCode()} for $uri")
                else -> MetadataAnswer.Failed(repository, FailureKind.OTHER, "HTTP ${response.statusCode()} for $uri")
            }
        }
    }

    private fun await(repository: String, answer: CompletableFuture<MetadataAnswer>): MetadataAnswer =
        try {
            answer.get(timeout.inWholeMilliseconds + GRACE_MILLIS, TimeUnit.MILLISECONDS)
        } catch (e: TimeoutException) {
            answer.cancel(true)
            MetadataAnswer.Failed(repository, FailureKind.TIMEOUT, "no answer")
        } catch (e: ExecutionException) {
            failure(repository, e.cause ?: e)
        }

    private fun failure(repository: String, error: Throwable): MetadataAnswer.Failed {
        val chain = generateSequence(error) { it.cause.takeIf { cause -> cause !== it } }.take(MAX_CAUSES).toList()
        val connectTimeout = chain.firstOrNull { it is HttpConnectTimeoutException }
        val timeout = chain.firstOrNull { it is HttpTimeoutException }
        val unreachable = chain.firstOrNull { it is ConnectException || it is UnknownHostException }
        return when {
            connectTimeout != null -> MetadataAnswer.Failed(repository, FailureKind.UNREACHABLE, "connect timed out")
            // an HTTPS proxy's refusal of the tunnel (the sandbox's egress proxy answers 403 to a host it does not allow)
            chain.any { messageOf(it)?.startsWith(TUNNEL_REFUSED) == true } ->
                MetadataAnswer.Failed(repository, FailureKind.DENIED, "$TUNNEL_REFUSED 403")
            timeout != null -> MetadataAnswer.Failed(repository, FailureKind.TIMEOUT, "no answer")
            // the JDK's client throws a ConnectException without message (caused by a ClosedChannelException) when refused
            unreachable != null -> MetadataAnswer.Failed(
                repository,
                FailureKind.UNREACHABLE,
                messageOf(unreachable) ?: "Connection refused",
            )
            else -> MetadataAnswer.Failed(
                repository,
                FailureKind.OTHER,
                chain.firstNotNullOfOrNull(::messageOf) ?: error.javaClass.simpleName,
            )
        }
    }

    private fun messageOf(error: Throwable): String? = error.message?.lineSequence()?.firstOrNull()?.takeIf { it.isNotBlank() }

    private fun readFile(repository: String, file: Path): MetadataAnswer =
        try {
            parse(repository, Files.readAllBytes(file))
        } catch (_: NoSuchFileException) {
            MetadataAnswer.NotFound(repository)
        } catch (e: java.io.IOException) {
            MetadataAnswer.Failed(repository, FailureKind.OTHER, e.message ?: e.javaClass.simpleName)
        }

    private fun parse(repository: String, xml: ByteArray): MetadataAnswer =
        try {
            val document = newDocumentBuilderFactory().newDocumentBuilder().parse(ByteArrayInputStream(xml))
            val versioning = document.documentElement.childElements("versioning").firstOrNull()
            val versions = versioning?.childElements("versions")?.firstOrNull()?.childElements("version")
                ?.map { it.textContent.trim() }?.filter { it.isNotEmpty() }
                .orEmpty()
            MetadataAnswer.Versions(repository, versions)
        } catch (e: Exception) {
            MetadataAnswer.Failed(repository, FailureKind.OTHER, "unreadable maven-metadata.xml (${e.message})")
        }

    private fun Element.childElements(name: String): List<Element> {
        val nodes = childNodes
        return (0 until nodes.length).mapNotNull { nodes.item(it) as? Element }.filter { it.tagName == name }
    }

    private companion object {
        /** The JDK client's message when a proxy refuses a CONNECT: `Tunnel failed, got: 403`. */
        const val TUNNEL_REFUSED = "Tunnel failed, got:"
        const val GRACE_MILLIS = 1_000L
        const val MAX_CAUSES = 20

        /** A factory per document: factories are not thread-safe, and answers are parsed on the client's threads. */
        fun newDocumentBuilderFactory(): DocumentBuilderFactory = DocumentBuilderFactory.newInstance().apply {
            setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)
            setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true)
            isXIncludeAware = false
            isExpandEntityReferences = false
        }
    }
}
