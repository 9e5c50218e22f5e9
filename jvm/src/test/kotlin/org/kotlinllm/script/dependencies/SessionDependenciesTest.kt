package org.kotlinllm.script.dependencies

import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.io.TempDir
import org.kotlinllm.script.SessionConfiguration
import org.kotlinllm.script.dependencySettings
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import java.nio.file.Path
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class SessionDependenciesTest {
    @TempDir
    lateinit var localRepository: Path

    private val server = RepositoryServer(Fixtures.root)
    private val repo1 = server.url("repo1/")
    private val repo2 = server.url("repo2/")
    private val opened = mutableListOf<AutoCloseable>(server)

    @AfterEach
    fun close() = opened.reversed().forEach { it.close() }

    private fun session(vararg defaults: String): SessionDependencies =
        SessionDependencies(
            SessionConfiguration(localRepository = localRepository, defaultRepositories = defaults.toList()).dependencySettings(),
            javaClass.classLoader,
        ).also { opened += it }

    @Test
    fun `a snippet without annotations needs nothing`() {
        assertEquals(DependencyResolution.None, session(repo1).resolve(Snippets.declared("val x = 1")))
    }

    @Test
    fun `resolves compile and runtime dependencies into the local repository`() {
        val result = session(repo1).resolved("@file:DependsOn(\"com.example:app:1.0\")\nApp.run()")
        assertEquals(listOf("app-1.0.jar", "greeter-1.1.jar", "util-1.0.jar"), result.names())
        assertTrue(result.classpath.all { it.toPath().startsWith(localRepository) }, "${result.classpath}")
        assertTrue(localRepository.resolve("com/example/greeter/1.1/greeter-1.1.jar").toFile().isFile)
        assertEquals(emptyMap(), result.resolvedVersions)
        assertEquals(emptyList(), result.warnings)
        assertTrue(server.requests.none { "junit" in it || "optional-missing" in it }, "${server.requests}")
    }

    @Test
    fun `jars of committed snippets are not added again, another version asked for is left out with a warning`() {
        val session = session(repo1)
        session.resolved("@file:DependsOn(\"com.example:app:1.0\")").commit()
        val again = session.resolved("@file:DependsOn(\"com.example:app:1.0\")")
        assertEquals(emptyList(), again.classpath)
        assertEquals(emptyList(), again.warnings)
        val other = session.resolved("@file:DependsOn(\"com.example:greeter:1.0\")")
        assertEquals(emptyList(), other.classpath)
        assertEquals(
            listOf(
                warning("Left out 'com.example:greeter:1.0': this session already loaded version '1.1', which is used instead", 1, 1, 43),
            ),
            other.warnings,
        )
    }

    @Test
    fun `a library's dependency on an older version than the session's is left out without a word`() {
        val session = session(repo1)
        session.resolved("@file:DependsOn(\"com.example:app:1.0\")").commit()
        val older = session.resolved("@file:DependsOn(\"com.example:oldgreeting:1.0\")")
        assertEquals(listOf("oldgreeting-1.0.jar"), older.names())
        assertEquals(emptyList(), older.warnings)
    }

    @Test
    fun `an uncommitted snippet leaves nothing behind`() {
        val session = session(repo1)
        session.resolved("@file:DependsOn(\"com.example:greeter:1.0\")")
        assertEquals(listOf("greeter-1.1.jar"), session.resolved("@file:DependsOn(\"com.example:greeter:1.1\")").names())
    }

    @Test
    fun `version-less coordinates take the latest stable version and keep it for the session`() {
        val session = session(repo1)
        val first = session.resolved("@file:DependsOn(\"com.example:greeter\")")
        assertEquals(mapOf("com.example:greeter" to "1.1"), first.resolvedVersions)
        assertEquals(listOf("greeter-1.1.jar"), first.names())
        first.commit()
        val metadataReads = server.requests.count { it.endsWith("maven-metadata.xml") }
        val second = session.resolved("@file:DependsOn(\"com.example:greeter\")")
        assertEquals(mapOf("com.example:greeter" to "1.1"), second.resolvedVersions)
        assertEquals(emptyList(), second.classpath)
        assertEquals(metadataReads, server.requests.count { it.endsWith("maven-metadata.xml") })
    }

    @Test
    fun `a failed snippet reports the chosen versions as warnings`() {
        val diagnostics = session(repo1).failed(
            "@file:DependsOn(\"com.example:compat\")\n@file:DependsOn(\"com.example:onlypre\")\n@file:DependsOn(\"com.example:nosuch:1.0\")\n",
        )
        assertEquals(
            listOf(
                warning("Resolved 'com.example:compat' to its latest stable version '0.8.0'", 1, 1, 38),
                warning("Resolved 'com.example:onlypre' to its latest pre-release version '1.0-beta-2'", 2, 1, 39),
                error("Cannot resolve 'com.example:nosuch:1.0': not found in $repo1", 3, 1, 42),
            ),
            diagnostics,
        )
    }

    @Test
    fun `version-less coordinates without usable versions`() {
        val diagnostics = session(repo1).failed("@file:DependsOn(\"com.example:nosuch\")\n@file:DependsOn(\"com.example:onlysnap\")")
        assertEquals(
            listOf(
                error("Cannot resolve 'com.example:nosuch': no maven-metadata.xml lists its versions in $repo1", 1, 1, 38),
                error(
                    "Cannot resolve 'com.example:onlysnap': only SNAPSHOT versions are listed (1.0-SNAPSHOT); declare one with its version",
                    2,
                    1,
                    40,
                ),
            ),
            diagnostics,
        )
    }

    @Test
    fun `declared repositories replace the default ones, for later snippets too`() {
        val session = session(repo1)
        val result = session.resolved("@file:Repository(\"$repo2\")\n@file:DependsOn(\"com.example:greeter\")")
        assertEquals(mapOf("com.example:greeter" to "1.2"), result.resolvedVersions)
        result.commit()
        val requests = server.requests.size
        assertEquals(
            listOf(error("Cannot resolve 'com.example:util:1.0': not found in $repo2", 1, 1, 40)),
            session.failed("@file:DependsOn(\"com.example:util:1.0\")"),
        )
        assertTrue(server.requests.drop(requests).none { it.startsWith("/repo1/") }, "${server.requests}")
    }

    @Test
    fun `the repository of a failed snippet is not kept`() {
        val session = session(repo1)
        session.resolved("@file:Repository(\"$repo2\")")
        assertEquals(listOf("util-1.0.jar"), session.resolved("@file:DependsOn(\"com.example:util:1.0\")").names())
    }

    @Test
    fun `a missing transitive dependency is named`() {
        assertEquals(
            listOf(
                error(
                    "Cannot resolve 'com.example:broken:1.0': its dependency 'com.example:missing:9.9' was not found in $repo1",
                    1,
                    1,
                    42,
                ),
            ),
            session(repo1).failed("@file:DependsOn(\"com.example:broken:1.0\")"),
        )
    }

    @Test
    fun `a multiplatform root artifact gets a hint to use its JVM artifact`() {
        val diagnostics = session(repo1).failed("@file:DependsOn(\"com.example:kmp:1.0\")")
        assertEquals(
            listOf(
                Diagnostic(
                    Severity.ERROR,
                    "Cannot resolve 'com.example:kmp:1.0': not found in $repo1",
                    SourceRange(1, 1, 1, 39),
                    "'com.example:kmp:1.0' has a POM but no jar: for a Kotlin Multiplatform library, " +
                        "depend on its JVM artifact, e.g. @file:DependsOn(\"com.example:kmp-jvm:1.0\")",
                ),
            ),
            diagnostics,
        )
    }

    @Test
    fun `a library's older kotlin-stdlib is left out for the host's without a word`() {
        val result = session(repo1).resolved("@file:DependsOn(\"com.example:kotlinuser:1.0\")")
        assertEquals(listOf("kotlinuser-1.0.jar"), result.names())
        assertEquals(emptyList(), result.warnings)
    }

    @Test
    fun `a jar the host provides, asked for by name, is left out with a warning once per session`() {
        val session = session(repo1)
        val result = session.resolved("@file:DependsOn(\"org.jetbrains.kotlin:kotlin-stdlib:1.8.21\")")
        assertEquals(emptyList(), result.names())
        val host = KotlinVersion::class.java.protectionDomain.codeSource.location.path.substringAfterLast('/')
        assertEquals(
            listOf(
                warning(
                    "Left out 'org.jetbrains.kotlin:kotlin-stdlib:1.8.21': the host provides its classes ($host), which are used instead",
                    1,
                    1,
                    61,
                ),
            ),
            result.warnings,
        )
        result.commit()
        assertEquals(emptyList(), session.resolved("@file:DependsOn(\"org.jetbrains.kotlin:kotlin-stdlib:1.8.21\")").warnings)
    }

    @Test
    fun `bad coordinates, bad repositories and templates are located errors`() {
        val diagnostics = session(repo1).failed(
            "@file:DependsOn(\"greeter\")\n@file:Repository(\"ftp:x\")\n@file:DependsOn(\"com.example:\${'$'}{1}:1\")",
        )
        assertEquals(
            listOf(
                error("The arguments of @file:DependsOn must be string literals, without templates", 3, 1, 43),
                error("Invalid repository 'ftp:x': expected an http://, https:// or file: URL, or an existing directory", 2, 1, 26),
                error(
                    "Invalid Maven coordinates 'greeter': expected 'group:artifact:version', or 'group:artifact' for its latest version",
                    1,
                    1,
                    27,
                ),
            ),
            diagnostics,
        )
    }

    @Test
    @Timeout(60) // only catches a hang: the message already shows the refusal was seen, not a silence waited out
    fun `an unreachable repository fails with the cause`() {
        val refusing = RepositoryServer.refusingUrl()
        val session = session(refusing)
        assertEquals(
            listOf(error("Cannot resolve 'com.example:greeter:1.1': cannot connect to $refusing: Connection refused", 1, 1, 43)),
            session.failed("@file:DependsOn(\"com.example:greeter:1.1\")"),
        )
        assertEquals(
            listOf(error("Cannot resolve 'com.example:greeter': cannot connect to $refusing: Connection refused", 1, 1, 39)),
            session.failed("@file:DependsOn(\"com.example:greeter\")"),
        )
    }

    @Test
    @Timeout(60) // only catches a hang: giving up takes the 8 s of silence the message names
    fun `a silent repository fails after the resolution timeout`() {
        val silent = SilentServer().also { opened += it }
        val session = session(silent.url)
        assertEquals(
            listOf(error("Cannot resolve 'com.example:greeter:1.1': ${silent.url} did not answer within 8 s", 1, 1, 43)),
            session.failed("@file:DependsOn(\"com.example:greeter:1.1\")"),
        )
    }

    private fun error(message: String, line: Int, start: Int, end: Int) =
        Diagnostic(Severity.ERROR, message, SourceRange(line, start, line, end))

    private fun warning(message: String, line: Int, start: Int, end: Int) =
        Diagnostic(Severity.WARNING, message, SourceRange(line, start, line, end))

    @Test
    fun `a multiplatform root resolves to its JVM variant, with and without a version, and so do its dependencies`() {
        val versioned = session(repo1).resolved("@file:DependsOn(\"com.example:mpp:1.0\")")
        assertEquals(listOf("mpp-jvm-1.0.jar", "mppbase-jvm-1.0.jar"), versioned.names())
        assertEquals(emptyList(), versioned.warnings)
        val latest = session(repo1).resolved("@file:DependsOn(\"com.example:mpp\")")
        assertEquals(listOf("mpp-jvm-1.0.jar", "mppbase-jvm-1.0.jar"), latest.names())
        assertEquals(mapOf("com.example:mpp" to "1.0"), latest.resolvedVersions)
    }

    @Test
    fun `a multiplatform root without a jar and one that a library depends on resolve to their JVM variants`() {
        assertEquals(listOf("mppnojar-jvm-1.0.jar"), session(repo1).resolved("@file:DependsOn(\"com.example:mppnojar:1.0\")").names())
        assertEquals(
            listOf("usesmpp-1.0.jar", "mpp-jvm-1.0.jar", "mppbase-jvm-1.0.jar"),
            session(repo1).resolved("@file:DependsOn(\"com.example:usesmpp:1.0\")").names(),
        )
    }

    @Test
    fun `a dependency that needs a newer version than the host's says so first, with what to do, once per session`() {
        val session = session(repo1)
        val code = "@file:DependsOn(\"com.example:kotlinuser:1.0\", \"com.example:newcoroutines:1.0\")"
        val result = session.resolved(code)
        assertEquals(listOf("kotlinuser-1.0.jar", "newcoroutines-1.0.jar"), result.names())
        val hostVersion = Fixtures.hostCoroutinesVersion
        assertEquals(
            listOf(
                Diagnostic(
                    Severity.WARNING,
                    "Version conflict: 'com.example:newcoroutines:1.0' needs newer versions than the host provides, which no " +
                        "dependency can replace: 'org.jetbrains.kotlinx:kotlinx-coroutines-core-jvm:99.0' (host: $hostVersion); " +
                        "calls into their newer API may fail with NoSuchMethodError or NoClassDefFoundError",
                    SourceRange(1, 47, 1, 78),
                    "if they do, use an older version of 'com.example:newcoroutines', built against the host's versions or older ones",
                ),
            ),
            result.warnings,
        )
        result.commit()
        assertEquals(emptyList(), session.resolved(code).warnings)
    }

    @Test
    fun `a dependency that needs a newer version than the session loaded says so, with what to do`() {
        val session = session(repo1)
        session.resolved("@file:DependsOn(\"com.example:greeter:1.0\")").commit()
        val result = session.resolved("@file:DependsOn(\"com.example:app:1.0\")")
        assertEquals(listOf("app-1.0.jar", "util-1.0.jar"), result.names())
        assertEquals(
            listOf(
                Diagnostic(
                    Severity.WARNING,
                    "Version conflict: 'com.example:app:1.0' needs newer versions than this session loaded before, which stay in " +
                        "use: 'com.example:greeter:1.1' (loaded: 1.0); calls into their newer API may fail with NoSuchMethodError " +
                        "or NoClassDefFoundError",
                    SourceRange(1, 1, 1, 39),
                    "to use the newer versions, restart the kernel and run @file:DependsOn(\"com.example:app:1.0\") before " +
                        "loading 'com.example:greeter:1.0'",
                ),
            ),
            result.warnings,
        )
    }

    @Test
    fun `the dependencies of one library that need newer versions are one warning, and so is the library itself`() {
        val session = session(repo1)
        session.resolved("@file:DependsOn(\"com.example:greeter:1.0\", \"com.example:util:1.0\")").commit()
        val result = session.resolved("@file:DependsOn(\"com.example:suite:1.0\")\n@file:DependsOn(\"com.example:util:2.0\")")
        assertEquals(listOf("suite-1.0.jar"), result.names())
        assertEquals(
            listOf(
                "Version conflict: 'com.example:suite:1.0' needs newer versions than this session loaded before, which stay in " +
                    "use: 'com.example:greeter:1.1' (loaded: 1.0), 'com.example:util:2.0' (loaded: 1.0); calls into their newer " +
                    "API may fail with NoSuchMethodError or NoClassDefFoundError",
                "Version conflict: 'com.example:util:2.0' needs newer versions than this session loaded before, which stay in " +
                    "use: 'com.example:util:2.0' (loaded: 1.0); calls into their newer API may fail with NoSuchMethodError or " +
                    "NoClassDefFoundError",
            ),
            result.warnings.map { it.message },
        )
        assertEquals(listOf(SourceRange(1, 1, 1, 41), SourceRange(2, 1, 2, 40)), result.warnings.map { it.range })
        assertEquals(
            listOf(
                "to use the newer versions, restart the kernel and run @file:DependsOn(\"com.example:suite:1.0\") before " +
                    "loading 'com.example:greeter:1.0', 'com.example:util:1.0'",
                "to use the newer versions, restart the kernel and run @file:DependsOn(\"com.example:util:2.0\") before " +
                    "loading 'com.example:util:1.0'",
            ),
            result.warnings.map { it.hint },
        )
    }

    @Test
    fun `a dependency that needs a newer version than an earlier one of the same snippet loads names that one`() {
        val result = session(repo1).resolved("@file:DependsOn(\"com.example:oldgreeting:1.0\", \"com.example:app:1.0\")")
        assertEquals(listOf("oldgreeting-1.0.jar", "greeter-1.0.jar", "app-1.0.jar", "util-1.0.jar"), result.names())
        assertEquals(
            listOf(
                "to use the newer versions, restart the kernel and run @file:DependsOn(\"com.example:app:1.0\") before " +
                    "loading 'com.example:oldgreeting:1.0'",
            ),
            result.warnings.map { it.hint },
        )
    }

    @Test
    fun `a newer patch release than the host's is left out without a word`() {
        val result = session(repo1).resolved("@file:DependsOn(\"com.example:patchcoroutines:1.0\")")
        assertEquals(listOf("patchcoroutines-1.0.jar"), result.names())
        assertEquals(emptyList(), result.warnings)
    }

    @Test
    fun `a jar cut short in the local repository is fetched again, and the warning says so`() {
        session(repo1).resolved("@file:DependsOn(\"com.example:greeter:1.1\")")
        val jar = localRepository.resolve("com/example/greeter/1.1/greeter-1.1.jar")
        jar.toFile().writeBytes(jar.toFile().readBytes().copyOf(40))
        val again = session(repo1).resolved("@file:DependsOn(\"com.example:greeter:1.1\")")
        assertEquals(listOf("greeter-1.1.jar"), again.names())
        java.util.zip.ZipFile(jar.toFile()).use { assertTrue(it.getEntry("com/example/greeter/Greeter.class") != null) }
        assertEquals(
            listOf(
                warning(
                    "Fetched 'com.example:greeter:1.1' again: its copy in the local repository $localRepository was broken " +
                        "(a jar that does not open or a POM that does not parse, e.g. a download cut short)",
                    1,
                    1,
                    43,
                ),
            ),
            again.warnings,
        )
    }

    @Test
    fun `a POM that does not parse in the local repository is fetched again`() {
        session(repo1).resolved("@file:DependsOn(\"com.example:app:1.0\")")
        localRepository.resolve("com/example/app/1.0/app-1.0.pom").toFile().writeText("<project><dependencies><depend")
        val again = session(repo1).resolved("@file:DependsOn(\"com.example:app:1.0\")")
        assertEquals(listOf("app-1.0.jar", "greeter-1.1.jar", "util-1.0.jar"), again.names())
        assertEquals(
            listOf(
                "Fetched 'com.example:app:1.0' again: its copy in the local repository $localRepository was broken " +
                    "(a jar that does not open or a POM that does not parse, e.g. a download cut short)",
            ),
            again.warnings.map { it.message },
        )
    }

    @Test
    fun `an artifact that was missing resolves once the repository has it, in the session and in a new one`(
        @TempDir served: Path,
    ) {
        val mutable = RepositoryServer(served).also { opened += it }
        val url = mutable.url("repo/")
        val session = session(url)
        val missing = session.failed("@file:DependsOn(\"com.example:later:1.0\")")
        assertEquals(listOf("Cannot resolve 'com.example:later:1.0': not found in $url"), missing.map { it.message })
        // the failure as Maven (mvn) caches it beside where the POM and jar would be, which it then trusts for a day
        val key = url.replace(":", "\\:")
        for (file in listOf("later-1.0.pom", "later-1.0.jar")) {
            localRepository.resolve("com/example/later/1.0/$file.lastUpdated").toFile().apply { parentFile.mkdirs() }.writeText(
                "$key.error=Could not find artifact\n$key.lastUpdated=${System.currentTimeMillis()}\n",
            )
        }
        TestRepository(served.resolve("repo")).artifact(
            "com.example",
            "later",
            "1.0",
            mapOf("com.example.later.Later" to "package com.example.later; public class Later {}"),
        )
        assertEquals(listOf("later-1.0.jar"), session.resolved("@file:DependsOn(\"com.example:later:1.0\")").names())
        assertEquals(listOf("later-1.0.jar"), session(url).resolved("@file:DependsOn(\"com.example:later:1.0\")").names())
    }
}
