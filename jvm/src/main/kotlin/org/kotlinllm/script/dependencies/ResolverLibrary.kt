package org.kotlinllm.script.dependencies

import io.github.oshai.kotlinlogging.KotlinLogging
import java.nio.file.Path
import kotlin.io.path.isDirectory
import kotlin.io.path.isRegularFile
import kotlin.io.path.listDirectoryEntries
import kotlin.time.measureTimedValue

private val logger = KotlinLogging.logger {}

/**
 * Finds maven-resolver's jars and creates [MavenBackend]s in one [ResolverClassLoader] per process.
 *
 * The jars are in the directory named by the system property [DIRECTORY_PROPERTY], else in `resolver-lib/` next to
 * the engine's jar (or next to its `classes/` directory): `jvm/pom.xml` copies them to `target/resolver-lib/`. The
 * resource [LIST_RESOURCE], written by the same build, names the jars to load.
 */
internal object ResolverLibrary {
    const val DIRECTORY_PROPERTY: String = "kotlinllm.resolver.lib"
    const val DIRECTORY_NAME: String = "resolver-lib"
    private const val LIST_RESOURCE = "resolver-lib.txt"
    private const val BACKEND_CLASS = "${ResolverClassLoader.BRIDGE_PACKAGE}AetherBackend"

    private val loader: Result<ResolverClassLoader> by lazy { runCatching { createLoader() } }

    /** A new backend, or a failure whose message says what is missing. */
    fun newBackend(settings: BackendSettings): Result<MavenBackend> = loader.mapCatching { loader ->
        val (backend, took) = measureTimedValue {
            loader.loadClass(BACKEND_CLASS).getConstructor(BackendSettings::class.java).newInstance(settings) as MavenBackend
        }
        logger.debug { "Maven resolver started in $took" }
        backend
    }

    private fun createLoader(): ResolverClassLoader {
        val directory = directory()
        val jars = jarNames()?.map { directory.resolve(it) }
            ?: directory.takeIf { it.isDirectory() }?.listDirectoryEntries("*.jar")?.sorted()
            ?: emptyList()
        val missing = jars.filterNot { it.isRegularFile() }
        if (jars.isEmpty() || missing.isNotEmpty()) {
            val what = missing.firstOrNull() ?: directory
            throw IllegalStateException("the Maven resolver's jars are missing ($what not found)")
        }
        logger.debug { "Maven resolver: ${jars.size} jars from $directory" }
        return ResolverClassLoader(jars.map { it.toUri().toURL() }, ResolverLibrary::class.java.classLoader)
    }

    private fun directory(): Path {
        System.getProperty(DIRECTORY_PROPERTY)?.takeIf { it.isNotBlank() }?.let { return Path.of(it) }
        val location = ResolverLibrary::class.java.protectionDomain?.codeSource?.location
            ?: throw IllegalStateException("the engine's location is unknown; set -D$DIRECTORY_PROPERTY")
        val engine = Path.of(location.toURI())
        val base = engine.parent ?: throw IllegalStateException("no directory beside $engine; set -D$DIRECTORY_PROPERTY")
        return base.resolve(DIRECTORY_NAME)
    }

    /** File names from the build's list (`resolver-lib/a.jar:resolver-lib/b.jar`), or null without the resource. */
    private fun jarNames(): List<String>? =
        ResolverLibrary::class.java.getResourceAsStream(LIST_RESOURCE)?.use { stream ->
            stream.readBytes().decodeToString().split(':', '\n').map { it.trim().substringAfterLast('/') }
                .filter { it.isNotEmpty() }
        }
}
