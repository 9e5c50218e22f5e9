package org.kotlinllm.script.jupyterapi.descriptor

import com.sun.net.httpserver.HttpServer
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.internal.jupyterapi.descriptor.DescriptorException
import org.kotlinllm.script.internal.jupyterapi.descriptor.DescriptorTexts
import org.kotlinllm.script.internal.jupyterapi.descriptor.LibraryDescriptors
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.ServerSocket
import java.nio.file.Files
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

/** Descriptors read from a file of a working directory and fetched from a server on 127.0.0.1. */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DescriptorTextsTest {

    private val descriptor = """{"dependencies": ["org.example:lib:${'$'}v"], "properties": {"v": "1.0"}}"""
    private val directory = Files.createTempDirectory("descriptors")
    private val server = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0).apply {
        createContext("/lib.json") { exchange ->
            val body = descriptor.toByteArray()
            exchange.sendResponseHeaders(200, body.size.toLong())
            exchange.responseBody.use { it.write(body) }
        }
        createContext("/moved.json") { exchange ->
            exchange.responseHeaders.add("Location", "/lib.json")
            exchange.sendResponseHeaders(302, -1)
            exchange.close()
        }
        createContext("/") { exchange ->
            exchange.sendResponseHeaders(404, -1)
            exchange.close()
        }
        start()
    }
    private val base = "http://127.0.0.1:${server.address.port}"

    @AfterAll
    fun close() {
        server.stop(0)
        directory.toFile().deleteRecursively()
    }

    @Test
    fun `a file relative to the working directory, and one that is not there`() {
        Files.createDirectories(directory.resolve("libs"))
        Files.writeString(directory.resolve("libs/lib.json"), descriptor)
        assertEquals(descriptor, DescriptorTexts.file("libs/lib.json", directory))
        assertEquals(descriptor, DescriptorTexts.file(directory.resolve("libs/lib.json").toString(), directory))
        assertEquals(
            "missing.json: no such file (the kernel's working directory is $directory)",
            assertFailsWith<DescriptorException> { DescriptorTexts.file("missing.json", directory) }.message,
        )
    }

    @Test
    fun `a URL is fetched, following a redirect, and read as a descriptor`() {
        val text = DescriptorTexts.url("$base/moved.json")
        assertEquals(descriptor, text)
        assertEquals(listOf("org.example:lib:2.0"), LibraryDescriptors.parse(text, mapOf("v" to "2.0"), "$base/lib.json").dependencies)
    }

    @Test
    fun `a URL the server does not have, one nothing answers at, and one not http are errors naming the URL`() {
        assertEquals(
            "$base/gone.json: the server answered HTTP 404",
            assertFailsWith<DescriptorException> { DescriptorTexts.url("$base/gone.json") }.message,
        )
        val closedPort = ServerSocket(0, 1, InetAddress.getLoopbackAddress()).use { it.localPort }
        val unreachable = "http://127.0.0.1:$closedPort/lib.json"
        assertEquals(
            "$unreachable: unreachable: connection refused",
            assertFailsWith<DescriptorException> { DescriptorTexts.url(unreachable) }.message,
        )
        assertEquals(
            "ftp://example.org/lib.json: not an http or https URL",
            assertFailsWith<DescriptorException> { DescriptorTexts.url("ftp://example.org/lib.json") }.message,
        )
    }
}
