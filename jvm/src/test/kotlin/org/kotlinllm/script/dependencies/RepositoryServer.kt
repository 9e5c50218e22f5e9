package org.kotlinllm.script.dependencies

import com.sun.net.httpserver.HttpExchange
import com.sun.net.httpserver.HttpServer
import java.net.InetAddress
import java.net.InetSocketAddress
import java.net.ServerSocket
import java.nio.file.Files
import java.nio.file.Path
import java.util.Base64
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors

/**
 * Serves [root] over HTTP on 127.0.0.1 (a 404 for what is absent) and logs the paths asked for. With [credentials]
 * (`user:password`), a request without them gets a 401 Basic challenge, and is logged too.
 */
internal class RepositoryServer(private val root: Path, private val credentials: String? = null) : AutoCloseable {
    private val server: HttpServer = HttpServer.create(InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0)
    private val executor = Executors.newFixedThreadPool(4)

    /** Request paths, in order. */
    val requests: MutableList<String> = CopyOnWriteArrayList()

    init {
        server.createContext("/") { exchange -> exchange.use(::serve) }
        server.executor = executor
        server.start()
    }

    /** The URL of [path] (e.g. `repo1/`) on this server. */
    fun url(path: String): String = "http://127.0.0.1:${server.address.port}/$path"

    private fun serve(exchange: HttpExchange) {
        val path = exchange.requestURI.path
        requests += path
        if (credentials != null && !authorized(exchange, credentials)) {
            exchange.responseHeaders.add("WWW-Authenticate", "Basic realm=\"test\"")
            exchange.sendResponseHeaders(401, -1)
            return
        }
        val file = root.resolve(path.removePrefix("/")).normalize()
        if (!file.startsWith(root) || !Files.isRegularFile(file)) {
            exchange.sendResponseHeaders(404, -1)
            return
        }
        val bytes = Files.readAllBytes(file)
        if (exchange.requestMethod == "HEAD") {
            exchange.sendResponseHeaders(200, -1)
            return
        }
        exchange.sendResponseHeaders(200, bytes.size.toLong())
        exchange.responseBody.write(bytes)
    }

    private fun authorized(exchange: HttpExchange, credentials: String): Boolean {
        val expected = "Basic " + Base64.getEncoder().encodeToString(credentials.toByteArray())
        return exchange.requestHeaders.getFirst("Authorization") == expected
    }

    override fun close() {
        server.stop(0)
        executor.shutdownNow()
    }

    companion object {
        /** A loopback URL whose port refuses connections: it was free a moment ago. */
        fun refusingUrl(): String {
            val port = ServerSocket(0, 1, InetAddress.getLoopbackAddress()).use { it.localPort }
            return "http://127.0.0.1:$port/"
        }
    }
}

/** Accepts connections on 127.0.0.1 (the kernel's backlog does) and never answers. */
internal class SilentServer : AutoCloseable {
    private val socket = ServerSocket(0, 50, InetAddress.getLoopbackAddress())

    val url: String get() = "http://127.0.0.1:${socket.localPort}/"

    override fun close() {
        socket.close()
    }
}
