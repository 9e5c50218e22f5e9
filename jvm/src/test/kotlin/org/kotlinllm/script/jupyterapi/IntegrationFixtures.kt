package org.kotlinllm.script.jupyterapi

import org.jetbrains.kotlin.cli.common.ExitCode
import org.jetbrains.kotlin.cli.jvm.K2JVMCompiler
import org.kotlinllm.script.dependencies.TestRepository
import java.io.ByteArrayOutputStream
import java.io.File
import java.io.PrintStream
import java.nio.file.AtomicMoveNotSupportedException
import java.nio.file.FileSystemException
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.StandardCopyOption
import java.security.MessageDigest
import java.util.jar.JarEntry
import java.util.jar.JarOutputStream
import kotlin.io.path.createDirectories
import kotlin.io.path.isRegularFile
import kotlin.io.path.readBytes
import kotlin.io.path.readText
import kotlin.io.path.relativeTo
import kotlin.io.path.walk
import kotlin.io.path.writeBytes
import kotlin.io.path.writeText

/**
 * Notebook integrations as libraries ship them, built by the tests: Kotlin sources compiled in this JVM by the Kotlin
 * compiler against the API jars the engine ships, packed with `META-INF/kotlin-jupyter-libraries/libraries.json` and
 * installed as Maven artifacts (POM and jar) in one repository directory.
 *
 * - [FX]: an integration using most of `JupyterIntegration.Builder` (see [FX_SOURCE]), with `fx.js` in its jar.
 * - [FX_BROKEN]: an integration compiled against a `KotlinKernelHost` that has `missingForTest()`, which the shipped
 *   API lacks (the stub is left out of its jar): the link check names [FX_BROKEN_MISSING].
 * - [FX_THROWS]: an integration whose `onLoaded` callback throws `IllegalStateException(`[FX_THROWS_MESSAGE]`)`.
 *
 * Built once: the repository keeps a stamp of what built it (sources, compiler, API), so later test JVMs and
 * scripts/setup.sh (through [main], for the Python tests) reuse it while it matches.
 */
internal object IntegrationFixtures {
    const val FX: String = "com.example:fx:1.0"
    const val FX_BROKEN: String = "com.example:fxbroken:1.0"
    const val FX_THROWS: String = "com.example:fxthrows:1.0"
    const val FX_PRODUCER: String = "com.example.fx.FxIntegration"
    const val FX_BROKEN_PRODUCER: String = "com.example.fxbroken.FxBrokenIntegration"
    const val FX_THROWS_PRODUCER: String = "com.example.fxthrows.FxThrowsIntegration"

    /** What [IntegrationLinkage][org.kotlinllm.script.internal.jupyterapi.linkage.IntegrationLinkage] says [FX_BROKEN] needs. */
    const val FX_BROKEN_MISSING: String = "KotlinKernelHost.missingForTest()"
    const val FX_THROWS_MESSAGE: String = "fx failed on purpose"

    /** `fx.js`, the classpath resource of [FX]'s `resources { js("fx") { classPath("fx.js") } }`. */
    const val FX_JS: String = "window.fxScript = 'fx.js loaded';\n"

    /** The URL resource of [FX], which an offline kernel skips. */
    const val FX_CDN_URL: String = "https://cdn.example/x.js"

    /** The stamp file of a built repository. */
    const val STAMP: String = ".fixtures-stamp"

    private var built: File? = null

    /** The repository of the fixtures beside the test classes (`<build dir>/integration-fixtures-m2`), built if needed. */
    @Synchronized
    fun repository(): File = built ?: build(defaultRoot()).toFile().also { built = it }

    /** The jar of [coordinates] (one of [FX], [FX_BROKEN], [FX_THROWS]) in [repository]. */
    fun jar(coordinates: String, repository: File = repository()): File {
        val (group, artifact, version) = coordinates.split(':')
        return repository.resolve("${group.replace('.', '/')}/$artifact/$version/$artifact-$version.jar")
    }

    /** Builds the fixtures into [root] unless its stamp says they are there; returns [root]. */
    fun build(root: Path): Path {
        val stamp = stamp()
        if (root.resolve(STAMP).isRegularFile() && root.resolve(STAMP).readText() == stamp) return root
        // Built aside and moved in whole: another test JVM may be building the same repository.
        root.parent.createDirectories()
        val work = Files.createTempDirectory(root.parent, "${root.fileName}-building")
        try {
            val repository = TestRepository(work)
            for (fixture in FIXTURES) install(repository, work, fixture)
            work.resolve(STAMP).writeText(stamp)
            root.toFile().deleteRecursively()
            try {
                Files.move(work, root, StandardCopyOption.ATOMIC_MOVE)
            } catch (_: AtomicMoveNotSupportedException) {
                Files.move(work, root)
            }
        } catch (moved: FileSystemException) {
            // another JVM may have moved the same build in first; anything else is a failure
            if (!root.resolve(STAMP).isRegularFile() || root.resolve(STAMP).readText() != stamp) throw moved
        } finally {
            work.toFile().deleteRecursively()
        }
        return root
    }

    /** `java -cp <test classes, engine, its lib> org.kotlinllm.script.jupyterapi.IntegrationFixtures <repository>`. */
    @JvmStatic
    fun main(args: Array<String>) {
        require(args.size == 1) { "usage: IntegrationFixtures <repository directory>" }
        println(build(Path.of(args[0]).toAbsolutePath()))
    }

    private fun defaultRoot(): Path {
        val testClasses = Path.of(IntegrationFixtures::class.java.protectionDomain.codeSource.location.toURI())
        return testClasses.parent.resolve("integration-fixtures-m2")
    }

    /** One fixture: its coordinates, producer, sources (path to text) and the sources it compiles against only. */
    private class Fixture(
        val coordinates: String,
        val producer: String,
        val sources: Map<String, String>,
        val stubs: Map<String, String> = emptyMap(),
        val resources: Map<String, String> = emptyMap(),
    )

    private val FIXTURES = listOf(
        Fixture(FX, FX_PRODUCER, mapOf("com/example/fx/Fx.kt" to FX_SOURCE), resources = mapOf("fx.js" to FX_JS)),
        Fixture(
            FX_BROKEN,
            FX_BROKEN_PRODUCER,
            mapOf("com/example/fxbroken/FxBroken.kt" to FX_BROKEN_SOURCE),
            stubs = mapOf("org/jetbrains/kotlinx/jupyter/api/KotlinKernelHost.kt" to HOST_STUB_SOURCE),
        ),
        Fixture(FX_THROWS, FX_THROWS_PRODUCER, mapOf("com/example/fxthrows/FxThrows.kt" to FX_THROWS_SOURCE)),
    )

    private fun stamp(): String {
        val digest = MessageDigest.getInstance("SHA-256")
        digest.update(KotlinVersion.CURRENT.toString().toByteArray())
        compileClasspath().forEach { digest.update(it.name.toByteArray()) }
        for (fixture in FIXTURES) {
            digest.update(fixture.coordinates.toByteArray())
            (fixture.sources + fixture.stubs + fixture.resources).toSortedMap().forEach { (path, text) ->
                digest.update("$path\n$text".toByteArray())
            }
        }
        return digest.digest().joinToString("") { "%02x".format(it) }
    }

    private fun install(repository: TestRepository, root: Path, fixture: Fixture) {
        val (group, artifact, version) = fixture.coordinates.split(':')
        val classes = compile(artifact, fixture.sources + fixture.stubs)
        val stubClasses = fixture.stubs.keys.map { it.removeSuffix(".kt") }
        val own = classes.filterKeys { name -> stubClasses.none { name.startsWith(it) } }
        val librariesJson = """{"definitions":[],"producers":[{"fqn":"${fixture.producer}"}]}"""
        val entries = own + fixture.resources.mapValues { it.value.toByteArray() } +
            ("META-INF/kotlin-jupyter-libraries/libraries.json" to librariesJson.toByteArray())
        repository.pom(group, artifact, version)
        val jar = root.resolve("${group.replace('.', '/')}/$artifact/$version/$artifact-$version.jar")
        jar.writeBytes(jarOf(entries))
        val sha1 = MessageDigest.getInstance("SHA-1").digest(jar.readBytes()).joinToString("") { "%02x".format(it) }
        jar.resolveSibling("${jar.fileName}.sha1").writeText(sha1)
    }

    /** The jars the fixtures compile against, found where this JVM loaded their classes from. */
    private fun compileClasspath(): List<File> = listOf(
        "org.jetbrains.kotlinx.jupyter.api.Notebook",
        "org.jetbrains.kotlinx.jupyter.protocol.api.KernelLoggerFactory",
        "kotlin.Unit",
        "kotlinx.serialization.KSerializer",
        "kotlinx.serialization.json.JsonObject",
        "org.slf4j.Logger",
    ).map { File(Class.forName(it).protectionDomain.codeSource.location.toURI()) }.distinct()

    /** The class files (path to bytes) of [sources] compiled by the Kotlin compiler, in this JVM. */
    private fun compile(module: String, sources: Map<String, String>): Map<String, ByteArray> {
        val work = Files.createTempDirectory("fixture-$module")
        try {
            val files = sources.map { (path, text) ->
                work.resolve("src/$path").also {
                    it.parent.createDirectories()
                    it.writeText(text)
                }
            }
            val out = work.resolve("classes")
            val messages = ByteArrayOutputStream()
            val arguments = listOf(
                "-no-stdlib", "-no-reflect", "-nowarn", "-jvm-target", "17", "-module-name", module,
                "-classpath", compileClasspath().joinToString(File.pathSeparator), "-d", out.toString(),
            ) + files.map { it.toString() }
            val exit = K2JVMCompiler().exec(PrintStream(messages, true), *arguments.toTypedArray())
            check(exit == ExitCode.OK) { "the fixture $module did not compile ($exit):\n$messages" }
            return out.walk().filter { it.isRegularFile() }
                .associate { it.relativeTo(out).toString().replace(File.separatorChar, '/') to it.readBytes() }
        } finally {
            work.toFile().deleteRecursively()
        }
    }

    private fun jarOf(entries: Map<String, ByteArray>): ByteArray {
        val bytes = ByteArrayOutputStream()
        JarOutputStream(bytes).use { jar ->
            entries.toSortedMap().forEach { (name, content) ->
                jar.putNextEntry(JarEntry(name))
                jar.write(content)
                jar.closeEntry()
            }
        }
        return bytes.toByteArray()
    }
}
