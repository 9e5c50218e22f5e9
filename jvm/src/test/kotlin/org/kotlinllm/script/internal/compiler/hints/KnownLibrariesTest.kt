package org.kotlinllm.script.internal.compiler.hints

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.ScriptSession
import org.kotlinllm.script.SessionConfiguration
import org.kotlinllm.script.assertValue
import java.nio.file.Files
import java.nio.file.Path
import kotlin.io.path.isDirectory
import kotlin.io.path.listDirectoryEntries
import kotlin.io.path.name
import kotlin.test.fail

/**
 * Every library a dependency hint names resolves by its coordinates and brings the names the table gives for it, from
 * the real artifacts the setup fetched (tests/libraries.py), served as a file: repository: no network.
 */
class KnownLibrariesTest {

    private val libraries: Path = Path.of(
        System.getProperty("kotlinllm.test.libraries")
            ?: fail("the system property kotlinllm.test.libraries is not set (jvm/pom.xml sets it)"),
    )

    /** The newest version of [coordinates] the setup fetched (another library may have brought an older one too). */
    private fun fetchedVersion(coordinates: String): String {
        val (group, artifact) = coordinates.split(':')
        val folder = libraries.resolve(group.replace('.', '/')).resolve(artifact)
        val versions = if (folder.isDirectory()) folder.listDirectoryEntries().filter { it.isDirectory() }.map { it.name } else emptyList()
        return versions.maxWithOrNull(compareBy(newer) { version -> version.split('.', '-').map { it.toIntOrNull() ?: 0 } })
            ?: fail("$coordinates is not in $libraries: add it to tests/libraries.py and run scripts/setup.sh")
    }

    private val newer = Comparator<List<Int>> { a, b ->
        a.zip(b).map { (x, y) -> x.compareTo(y) }.firstOrNull { it != 0 } ?: a.size.compareTo(b.size)
    }

    @Test
    @Timeout(600)
    fun `each library of the table resolves and brings its names`() {
        val local = Files.createTempDirectory("known-libraries")
        ScriptSession(
            configuration = SessionConfiguration(localRepository = local, defaultRepositories = listOf(libraries.toUri().toString())),
        ).use { session ->
            for (library in KnownLibraries.all) {
                val imports = library.names.joinToString("\n") { "import $it" }
                val code = "@file:DependsOn(\"${library.coordinates}:${fetchedVersion(library.coordinates)}\")\n$imports\n\"ok\""
                runBlocking { session.execute(code) }.assertValue()
            }
        }
        local.toFile().deleteRecursively()
    }
}
