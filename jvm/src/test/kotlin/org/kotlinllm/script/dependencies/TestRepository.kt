package org.kotlinllm.script.dependencies

import java.io.ByteArrayOutputStream
import java.nio.file.Files
import java.nio.file.Path
import java.security.MessageDigest
import java.util.jar.JarEntry
import java.util.jar.JarOutputStream
import javax.tools.ToolProvider
import kotlin.io.path.createDirectories
import kotlin.io.path.readBytes
import kotlin.io.path.walk
import kotlin.io.path.writeBytes
import kotlin.io.path.writeText

/** A dependency of a test POM. */
internal data class TestDependency(
    val groupId: String,
    val artifactId: String,
    val version: String,
    val scope: String? = null,
    val optional: Boolean = false,
)

/** Writes a Maven repository layout under [root]: jars compiled with javac, POMs, metadata, with `.sha1` files. */
internal class TestRepository(val root: Path) {

    /** A jar whose classes are compiled from [sources] (class name to Java source), plus its POM. */
    fun artifact(
        groupId: String,
        artifactId: String,
        version: String,
        sources: Map<String, String> = emptyMap(),
        dependencies: List<TestDependency> = emptyList(),
        compileOnly: Map<String, String> = emptyMap(),
        resources: Map<String, String> = emptyMap(),
    ): TestRepository {
        pom(groupId, artifactId, version, dependencies)
        val ownPaths = sources.keys.map { it.replace('.', '/') }
        val classes = compile(sources + compileOnly).filterKeys { name -> ownPaths.any { name.startsWith(it) } }
        publish(groupId, artifactId, version, "jar", jar(classes + resources.mapValues { it.value.toByteArray() }))
        return this
    }

    /** A jar with [entries] as raw bytes (names like `kotlin/Unit.class`), never loaded, plus its POM. */
    fun rawArtifact(groupId: String, artifactId: String, version: String, entries: List<String>): TestRepository {
        pom(groupId, artifactId, version, emptyList())
        publish(groupId, artifactId, version, "jar", jar(entries.associateWith { byteArrayOf(0xCA.toByte(), 0xFE.toByte()) }))
        return this
    }

    /**
     * A Kotlin Multiplatform root as Gradle publishes it: a POM naming [dependencies] (common ones), a jar of common
     * metadata only, and Gradle module metadata whose JVM variants are at [jvmArtifactId] (same group and version).
     * Without [withJar], the root has no jar at all.
     */
    fun multiplatformRoot(
        groupId: String,
        artifactId: String,
        version: String,
        jvmArtifactId: String,
        dependencies: List<TestDependency> = emptyList(),
        withJar: Boolean = true,
    ): TestRepository {
        pom(groupId, artifactId, version, dependencies, comment = "<!-- do_not_remove: published-with-gradle-metadata -->")
        if (withJar) {
            val entries = listOf("META-INF/kotlin-project-structure-metadata.json", "commonMain/default/manifest")
            publish(groupId, artifactId, version, "jar", jar(entries.associateWith { "{}".toByteArray() }))
        }
        fun variant(name: String, usage: String, platform: String, module: String?) = buildString {
            append("""{"name": "$name", "attributes": {"org.gradle.category": "library", "org.gradle.usage": "$usage", """)
            append(""""org.jetbrains.kotlin.platform.type": "$platform"}""")
            if (module != null) {
                append(""", "available-at": {"url": "../../$module/$version/$module-$version.module", """)
                append(""""group": "$groupId", "module": "$module", "version": "$version"}""")
            }
            append("}")
        }
        val variants = listOf(
            variant("metadataApiElements", "kotlin-metadata", "common", null),
            variant("jsRuntimeElements-published", "kotlin-runtime", "js", "$artifactId-js"),
            variant("jvmApiElements-published", "java-api", "jvm", jvmArtifactId),
            variant("jvmRuntimeElements-published", "java-runtime", "jvm", jvmArtifactId),
        )
        val module = """{"formatVersion": "1.1", "component": {"group": "$groupId", "module": "$artifactId", "version": "$version"}, """ +
            """"variants": [${variants.joinToString(", ")}]}"""
        return extra(groupId, artifactId, version, "module", module)
    }

    fun pom(
        groupId: String,
        artifactId: String,
        version: String,
        dependencies: List<TestDependency> = emptyList(),
        comment: String = "",
    ): TestRepository {
        val deps = dependencies.joinToString("\n") { d ->
            """    <dependency><groupId>${d.groupId}</groupId><artifactId>${d.artifactId}</artifactId><version>${d.version}</version>""" +
                (d.scope?.let { "<scope>$it</scope>" } ?: "") + (if (d.optional) "<optional>true</optional>" else "") +
                "</dependency>"
        }
        val pom = """
            |<?xml version="1.0" encoding="UTF-8"?>
            |$comment
            |<project xmlns="http://maven.apache.org/POM/4.0.0">
            |  <modelVersion>4.0.0</modelVersion>
            |  <groupId>$groupId</groupId><artifactId>$artifactId</artifactId><version>$version</version>
            |  <dependencies>
            |$deps
            |  </dependencies>
            |</project>
        """.trimMargin()
        publish(groupId, artifactId, version, "pom", pom.toByteArray())
        return this
    }

    /** A file next to the artifact's POM, e.g. Gradle module metadata (`module`). */
    fun extra(groupId: String, artifactId: String, version: String, extension: String, content: String): TestRepository {
        publish(groupId, artifactId, version, extension, content.toByteArray())
        return this
    }

    fun metadata(groupId: String, artifactId: String, versions: List<String>): TestRepository {
        val xml = """
            |<?xml version="1.0" encoding="UTF-8"?>
            |<metadata>
            |  <groupId>$groupId</groupId><artifactId>$artifactId</artifactId>
            |  <versioning>
            |    <latest>${versions.last()}</latest>
            |    <versions>
            |${versions.joinToString("\n") { "      <version>$it</version>" }}
            |    </versions>
            |    <lastUpdated>20250101120000</lastUpdated>
            |  </versioning>
            |</metadata>
        """.trimMargin()
        write(moduleDirectory(groupId, artifactId).resolve("maven-metadata.xml"), xml.toByteArray())
        return this
    }

    private fun publish(groupId: String, artifactId: String, version: String, extension: String, bytes: ByteArray) {
        write(moduleDirectory(groupId, artifactId).resolve(version).resolve("$artifactId-$version.$extension"), bytes)
    }

    private fun moduleDirectory(groupId: String, artifactId: String): Path =
        root.resolve(groupId.replace('.', '/')).resolve(artifactId)

    private fun write(file: Path, bytes: ByteArray) {
        file.parent.createDirectories()
        file.writeBytes(bytes)
        val sha1 = MessageDigest.getInstance("SHA-1").digest(bytes).joinToString("") { "%02x".format(it) }
        file.resolveSibling(file.fileName.toString() + ".sha1").writeText(sha1)
    }

    private companion object {
        fun compile(sources: Map<String, String>): Map<String, ByteArray> {
            if (sources.isEmpty()) return emptyMap()
            val work = Files.createTempDirectory("javac")
            val src = work.resolve("src").createDirectories()
            val out = work.resolve("out").createDirectories()
            val files = sources.map { (className, code) ->
                src.resolve(className.replace('.', '/') + ".java").also {
                    it.parent.createDirectories()
                    it.writeText(code)
                }
            }
            val javac = ToolProvider.getSystemJavaCompiler()
            val status = javac.run(null, null, null, "-d", out.toString(), "--release", "11", *files.map { it.toString() }.toTypedArray())
            check(status == 0) { "javac failed for ${sources.keys}" }
            val classes = out.walk().filter { Files.isRegularFile(it) }
                .associate { out.relativize(it).toString().replace('\\', '/') to it.readBytes() }
            work.toFile().deleteRecursively()
            return classes
        }

        fun jar(entries: Map<String, ByteArray>): ByteArray {
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
}
