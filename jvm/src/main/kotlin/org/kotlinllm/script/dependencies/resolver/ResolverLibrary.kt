package org.kotlinllm.script.dependencies.resolver

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.dependencies.model.BackendSettings
import org.kotlinllm.script.dependencies.model.MavenBackend
import java.io.File
import java.nio.file.Path
import kotlin.io.path.isDirectory
import kotlin.io.path.isRegularFile
import kotlin.io.path.listDirectoryEntries
import kotlin.time.measureTimedValue

private val logger = KotlinLogging.logger {}

/**
 * Finds maven-resolver's jars and creates [MavenBackend]s in one [ResolverClassLoader] per process.
 *
 * The jars are, in this order of precedence: those listed by the system property [CLASSPATH_PROPERTY]
 * (separated by `File.pathSeparator`); those of the directory named by [DIRECTORY_PROPERTY]; or those of
 * `resolver-lib/` next to the engine's jar (or next to its `classes/` directory): `jvm/pom.xml` copies them to
 * `target/resolver-lib/`. In a directory, the resource [LIST_RESOURCE], written by the same build, names the jars to
 * load, so stale jars of older versions are never picked up.
 */
internal object ResolverLibrary {
    const val CLASSPATH_PROPERTY: String = "kotlinllm.resolver.classpath"
    const val DIRECTORY_PROPERTY: String = "kotlinllm.resolver.lib"
    const val DIRECTORY_NAME: String = "resolver-lib"

    /** What to do when the library is missing: the second line of its diagnostic. */
    const val MISSING_HINT: String =
        "build jvm/ with Maven (it fills target/$DIRECTORY_NAME), or set -D$DIRECTORY_PROPERTY to that directory"
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
        val listed = System.getProperty(CLASSPATH_PROPERTY)?.split(File.pathSeparatorChar)?.filter { it.isNotBlank() }
        val jars = if (!listed.isNullOrEmpty()) listed.map { Path.of(it) } else jarsIn(directory())
        val missing = jars.firstOrNull { !it.isRegularFile() }
        if (missing != null) throw IllegalStateException("the Maven resolver's jars are missing ($missing not found)")
        logger.debug { "Maven resolver: ${jars.size} jars: ${jars.joinToString { it.fileName.toString() }}" }
        return ResolverClassLoader(jars.map { it.toUri().toURL() }, ResolverLibrary::class.java.classLoader)
    }

    private fun jarsIn(directory: Path): List<Path> {
        val jars = jarNames()?.map { directory.resolve(it) }
            ?: directory.takeIf { it.isDirectory() }?.listDirectoryEntries("*.jar")?.sorted()
            ?: emptyList()
        if (jars.isEmpty()) throw IllegalStateException("the Maven resolver's jars are missing ($directory has none)")
        return jars
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
