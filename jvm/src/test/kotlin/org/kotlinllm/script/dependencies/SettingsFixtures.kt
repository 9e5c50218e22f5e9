package org.kotlinllm.script.dependencies

import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.nio.file.Path
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import kotlin.io.path.writeText

/** Writes a Maven `settings.xml` with the given `<mirrors>`, `<proxies>` and `<servers>` content. */
internal fun writeSettings(file: Path, mirrors: String = "", proxies: String = "", servers: String = "", extra: String = ""): Path {
    file.writeText(
        """
        |<?xml version="1.0" encoding="UTF-8"?>
        |<settings xmlns="http://maven.apache.org/SETTINGS/1.2.0">
        |  $extra
        |  <mirrors>$mirrors</mirrors>
        |  <proxies>$proxies</proxies>
        |  <servers>$servers</servers>
        |</settings>
        """.trimMargin(),
    )
    return file
}

internal fun mirror(id: String, url: String, mirrorOf: String): String =
    "<mirror><id>$id</id><url>$url</url><mirrorOf>$mirrorOf</mirrorOf></mirror>"

internal fun server(id: String, username: String, password: String): String =
    "<server><id>$id</id><username>$username</username><password>$password</password></server>"

internal fun proxy(port: Int, active: Boolean = true, nonProxyHosts: String = ""): String =
    "<proxy><id>p$port</id><active>$active</active><protocol>http</protocol><host>127.0.0.1</host><port>$port</port>" +
        "<nonProxyHosts>$nonProxyHosts</nonProxyHosts></proxy>"

/** An HTTP proxy on 127.0.0.1: forwards absolute-URI GET and HEAD requests, and logs their URIs. */
internal class TestProxy : AutoCloseable {
    private val server: HttpServer = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0)
    private val executor = Executors.newFixedThreadPool(4)
    private val client = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY).build()

    /** Absolute URIs asked for, in order. */
    val requests: MutableList<String> = CopyOnWriteArrayList()

    val port: Int get() = server.address.port

    init {
        server.createContext("/") { exchange -> exchange.use(::forward) }
        server.executor = executor
        server.start()
    }

    private fun forward(exchange: HttpExchange) {
        val uri = exchange.requestURI
        requests += uri.toString()
        if (uri.scheme != "http") {
            exchange.sendResponseHeaders(400, -1)
            return
        }
        val request = HttpRequest.newBuilder(uri).method(exchange.requestMethod, HttpRequest.BodyPublishers.noBody())
        exchange.requestHeaders.getFirst("Authorization")?.let { request.header("Authorization", it) }
        val response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray())
        response.headers().firstValue("WWW-Authenticate").ifPresent { exchange.responseHeaders.add("WWW-Authenticate", it) }
        val body = response.body()
        if (exchange.requestMethod == "HEAD" || body.isEmpty()) {
            exchange.sendResponseHeaders(response.statusCode(), -1)
            return
        }
        exchange.sendResponseHeaders(response.statusCode(), body.size.toLong())
        exchange.responseBody.write(body)
    }

    override fun close() {
        server.stop(0)
        executor.shutdownNow()
    }
}
