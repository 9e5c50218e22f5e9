package org.kotlinllm.script.internal.jupyterapi.descriptor

import java.io.IOException
import java.net.ConnectException
import java.net.URI
import java.net.UnknownHostException
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.net.http.HttpTimeoutException
import java.nio.file.Files
import java.nio.file.NoSuchFileException
import java.nio.file.Path
import java.time.Duration

/**
 * The text of a descriptor that `%use` names by its file (`@file[lib.json]`, relative to the kernel's working
 * directory) or its URL (`@url[https://…]`, or the URL alone); what cannot be read is a [DescriptorException] naming
 * the file or URL and why.
 */
internal object DescriptorTexts {

    fun file(path: String, workingDirectory: Path): String {
        val file = workingDirectory.resolve(path)
        return try {
            Files.readString(file)
        } catch (_: NoSuchFileException) {
            throw DescriptorException(path, "no such file (the kernel's working directory is $workingDirectory)")
        } catch (e: IOException) {
            throw DescriptorException(path, "cannot be read: ${e.message ?: e.javaClass.simpleName}")
        }
    }

    /** GET [url], following redirects; [timeout] bounds the connection and the whole answer, each. */
    fun url(url: String, timeout: Duration = Duration.ofSeconds(30)): String {
        val uri = try {
            URI(url).takeIf { it.scheme == "http" || it.scheme == "https" }
        } catch (_: java.net.URISyntaxException) {
            null
        } ?: throw DescriptorException(url, "not an http or https URL")
        val client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NORMAL).build()
        val request = HttpRequest.newBuilder(uri).timeout(timeout).GET().build()
        val response = try {
            client.send(request, HttpResponse.BodyHandlers.ofString())
        } catch (e: IOException) {
            throw DescriptorException(url, "unreachable: ${reason(e)}")
        }
        if (response.statusCode() !in 200..299) throw DescriptorException(url, "the server answered HTTP ${response.statusCode()}")
        return response.body()
    }

    /** What failed, from the innermost cause that says it (the client's own exceptions often carry no message). */
    private fun reason(error: IOException): String {
        val causes = generateSequence<Throwable>(error) { it.cause }.toList()
        causes.firstNotNullOfOrNull { it as? UnknownHostException }?.let { return "unknown host ${it.message ?: ""}".trim() }
        if (causes.any { it is HttpTimeoutException }) return "no answer in time"
        causes.firstNotNullOfOrNull { it as? ConnectException }?.let { return it.message ?: "connection refused" }
        val cause = causes.lastOrNull { it.message != null } ?: causes.last()
        return cause.message ?: cause.javaClass.simpleName
    }
}
