package org.kotlinllm.script.internal.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.MimeTypedResult
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryResource
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourceLocation
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourcePathType
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourceType
import org.kotlinllm.script.internal.routing.SessionDisplay
import java.io.File

/**
 * The JS and CSS resources libraries declare, shown once per session as inline HTML: output stays offline, so a
 * resource is read from the library's classpath or a local file; one only on the network (a CDN URL) is skipped
 * with a notice rather than sent as a `<script src>` the reader's browser would fetch.
 */
internal class LibraryResources(
    private val display: SessionDisplay,
    private val classLoader: () -> ClassLoader,
    private val notice: (String) -> Unit,
) {
    private val shown = HashSet<String>()

    fun show(resources: List<LibraryResource>, library: String) {
        for (resource in resources) {
            if (!shown.add(resource.name)) continue
            val texts = resource.bundles.map { bundle -> bundle.locations.firstNotNullOfOrNull(::read) }
            if (texts.any { it == null }) {
                val urls = resource.bundles.flatMap { it.locations }.filter { it.type != ResourcePathType.CLASSPATH_PATH }.map { it.path }
                notice("$library: resource '${resource.name}' is only at ${urls.joinToString()}: skipped (output stays offline)")
                continue
            }
            val html = texts.filterNotNull().joinToString("\n") { text ->
                if (resource.type == ResourceType.JS) "<script type=\"text/javascript\">\n$text\n</script>" else "<style>\n$text\n</style>"
            }
            display.display(
                MimeTypedResult(
                    mapOf(
                        "text/html" to html,
                        "text/plain" to "${resource.type} resource '${resource.name}' of $library",
                    ),
                    false,
                    null,
                ),
                null,
                update = false,
            )
        }
    }

    private fun read(location: ResourceLocation): String? = when (location.type) {
        ResourcePathType.CLASSPATH_PATH -> classLoader().getResourceAsStream(location.path)?.use { it.readBytes().decodeToString() }
        ResourcePathType.LOCAL_PATH -> File(location.path).takeIf { it.isFile }?.readText()
        else -> null
    }
}
