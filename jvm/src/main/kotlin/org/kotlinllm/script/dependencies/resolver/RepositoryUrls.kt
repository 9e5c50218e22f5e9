package org.kotlinllm.script.dependencies.resolver

import java.net.URI
import java.net.URISyntaxException
import java.nio.file.InvalidPathException
import java.nio.file.Path
import kotlin.io.path.isDirectory

/** The URLs that `@file:Repository` accepts, and the ids Maven keys them by. */
internal object RepositoryUrls {
    private val ID_UNSAFE = Regex("[^A-Za-z0-9._-]")

    /** An http(s) or file URL as written, an existing directory as a file URL; null for anything else. */
    fun normalize(text: String): String? {
        val trimmed = text.trim()
        val uri = try {
            URI(trimmed)
        } catch (_: URISyntaxException) {
            null
        }
        val scheme = uri?.scheme?.lowercase()
        if ((scheme == "http" || scheme == "https") && !uri.host.isNullOrEmpty()) return trimmed
        if (scheme == "file") return trimmed
        val directory = try {
            Path.of(trimmed)
        } catch (_: InvalidPathException) {
            return null
        }
        return if (directory.isAbsolute && directory.isDirectory()) directory.toUri().toString() else null
    }

    /**
     * `central` for Maven Central (so files Maven itself downloaded count as available, and a settings `<mirror>` of
     * `central` or a `<server>` with the id `central` applies), else the URL with every character outside
     * `A-Z a-z 0-9 . _ -` replaced by `_`, e.g. `https___repo.example.com_maven_` for `https://repo.example.com/maven/`.
     */
    fun idOf(url: String, centralUrl: String): String =
        if (url.trimEnd('/') == centralUrl.trimEnd('/')) "central" else url.replace(ID_UNSAFE, "_")
}
