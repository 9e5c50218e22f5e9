package org.kotlinllm.script.dependencies

import java.nio.file.Files
import java.nio.file.Path

/** The test repositories `repo1/` and `repo2/`, built once per test JVM under one root. */
internal object Fixtures {
    val root: Path by lazy { build() }

    /** The jar of the host's kotlinx-coroutines, e.g. `kotlinx-coroutines-core-jvm-1.11.0.jar`. */
    val hostCoroutinesJar: String = kotlinx.coroutines.Job::class.java.protectionDomain.codeSource.location.path.substringAfterLast('/')

    val hostCoroutinesVersion: String = hostCoroutinesJar.removePrefix("kotlinx-coroutines-core-jvm-").removeSuffix(".jar")

    /** The host's coroutines version with its patch number one up: `1.11.1` for `1.11.0`. */
    val hostCoroutinesNextPatch: String = hostCoroutinesVersion.split('.').let { (major, minor, patch) ->
        "$major.$minor.${patch.toInt() + 1}"
    }

    private fun greeter(version: String) = mapOf(
        "com.example.greeter.Greeter" to """
            package com.example.greeter;
            public class Greeter { public static String version() { return "$version"; } }
        """.trimIndent(),
    )

    private fun build(): Path {
        val root = Files.createTempDirectory("maven-fixtures")
        Runtime.getRuntime().addShutdownHook(Thread { root.toFile().deleteRecursively() })
        TestRepository(root.resolve("repo1")).apply {
            listOf("1.0", "1.1", "2.0-RC1").forEach { artifact("com.example", "greeter", it, greeter(it)) }
            metadata("com.example", "greeter", listOf("1.1", "1.0", "2.0-RC1", "2.0-SNAPSHOT"))
            artifact(
                "com.example",
                "util",
                "1.0",
                mapOf(
                    "com.example.util.Util" to
                        "package com.example.util; public class Util { public static String twice(String s) { return s + s; } }",
                ),
            )
            artifact(
                "com.example",
                "app",
                "1.0",
                mapOf(
                    "com.example.app.App" to """
                        package com.example.app;
                        public class App { public static String run() { return "Hello from greeter " + com.example.greeter.Greeter.version(); } }
                    """.trimIndent(),
                ),
                compileOnly = greeter("1.1"),
                dependencies = listOf(
                    TestDependency("com.example", "greeter", "1.1"),
                    TestDependency("com.example", "util", "1.0", scope = "runtime"),
                    TestDependency("junit", "junit", "4.13.2", scope = "test"),
                    TestDependency("com.example", "optional-missing", "1.0", optional = true),
                ),
            )
            // a library on an older greeter than app's, and one needing newer ones of greeter and util
            artifact(
                "com.example",
                "oldgreeting",
                "1.0",
                mapOf("com.example.og.OldGreeting" to "package com.example.og; public class OldGreeting {}"),
                listOf(TestDependency("com.example", "greeter", "1.0")),
            )
            artifact(
                "com.example",
                "util",
                "2.0",
                mapOf("com.example.util.Util" to "package com.example.util; public class Util { public static int two() { return 2; } }"),
            )
            artifact(
                "com.example",
                "suite",
                "1.0",
                mapOf("com.example.suite.Suite" to "package com.example.suite; public class Suite {}"),
                listOf(TestDependency("com.example", "greeter", "1.1"), TestDependency("com.example", "util", "2.0")),
            )
            artifact("com.example", "broken", "1.0", dependencies = listOf(TestDependency("com.example", "missing", "9.9")))
            listOf("0.8.0", "0.8.0-0.6.x-compat").forEach {
                rawArtifact("com.example", "compat", it, listOf("com/example/compat/C$it.class"))
            }
            metadata("com.example", "compat", listOf("0.8.0-0.6.x-compat", "0.8.0"))
            listOf("1.0-alpha-1", "1.0-beta-2").forEach { rawArtifact("com.example", "onlypre", it, listOf("com/example/pre/P.class")) }
            metadata("com.example", "onlypre", listOf("1.0-alpha-1", "1.0-beta-2", "1.0-SNAPSHOT"))
            metadata("com.example", "onlysnap", listOf("1.0-SNAPSHOT"))
            pom("com.example", "kmp", "1.0", comment = "<!-- do_not_remove: published-with-gradle-metadata -->")
            extra("com.example", "kmp", "1.0", "module", """{"formatVersion": "1.1"}""")
            metadata("com.example", "kmp", listOf("1.0"))
            artifact("com.example", "kmp-jvm", "1.0", mapOf("com.example.kmp.Kmp" to "package com.example.kmp; public class Kmp {}"))
            // multiplatform: a root whose JVM variant depends on another root, a POM-only root, a library using a root
            multiplatformRoot("com.example", "mpp", "1.0", "mpp-jvm", listOf(TestDependency("com.example", "mppbase", "1.0")))
            metadata("com.example", "mpp", listOf("1.0"))
            artifact(
                "com.example",
                "mpp-jvm",
                "1.0",
                mapOf(
                    "com.example.mpp.Mpp" to
                        "package com.example.mpp; public class Mpp { public static String hello() { return \"mpp on the JVM\"; } }",
                ),
                listOf(TestDependency("com.example", "mppbase", "1.0")),
            )
            multiplatformRoot("com.example", "mppbase", "1.0", "mppbase-jvm")
            artifact(
                "com.example",
                "mppbase-jvm",
                "1.0",
                mapOf("com.example.mppbase.Base" to "package com.example.mppbase; public class Base {}"),
            )
            multiplatformRoot("com.example", "mppnojar", "1.0", "mppnojar-jvm", withJar = false)
            artifact(
                "com.example",
                "mppnojar-jvm",
                "1.0",
                mapOf("com.example.nojar.NoJar" to "package com.example.nojar; public class NoJar {}"),
            )
            artifact(
                "com.example",
                "usesmpp",
                "1.0",
                mapOf("com.example.uses.Uses" to "package com.example.uses; public class Uses {}"),
                listOf(TestDependency("com.example", "mpp", "1.0")),
            )
            // libraries with a Jupyter integration of JetBrains' kernel, and one whose descriptor integrates nothing
            artifact(
                "com.example",
                "integrated",
                "1.0",
                mapOf("com.example.integrated.Table" to "package com.example.integrated; public class Table {}"),
                resources = mapOf(
                    "META-INF/kotlin-jupyter-libraries/libraries.json" to
                        """{"definitions":[],"producers":[{"fqn":"com.example.integrated.Integration"}]}""",
                ),
            )
            artifact(
                "com.example",
                "emptyintegration",
                "1.0",
                mapOf("com.example.empty.Empty" to "package com.example.empty; public class Empty {}"),
                resources = mapOf("META-INF/kotlin-jupyter-libraries/libraries.json" to """{"definitions":[],"producers":[]}"""),
            )
            // a library built against a newer kotlinx-coroutines than the host's
            rawArtifact(
                "org.jetbrains.kotlinx",
                "kotlinx-coroutines-core-jvm",
                "99.0",
                listOf("kotlinx/coroutines/Job.class", "kotlinx/coroutines/Deferred.class", "kotlinx/coroutines/Dispatchers.class"),
            )
            rawArtifact(
                "org.jetbrains.kotlinx",
                "kotlinx-coroutines-core-jvm",
                hostCoroutinesNextPatch,
                listOf("kotlinx/coroutines/Job.class", "kotlinx/coroutines/Deferred.class", "kotlinx/coroutines/Dispatchers.class"),
            )
            artifact(
                "com.example",
                "patchcoroutines",
                "1.0",
                mapOf("com.example.pc.UsesPatch" to "package com.example.pc; public class UsesPatch {}"),
                listOf(TestDependency("org.jetbrains.kotlinx", "kotlinx-coroutines-core-jvm", hostCoroutinesNextPatch)),
            )
            artifact(
                "com.example",
                "newcoroutines",
                "1.0",
                mapOf("com.example.nc.UsesNewer" to "package com.example.nc; public class UsesNewer {}"),
                listOf(TestDependency("org.jetbrains.kotlinx", "kotlinx-coroutines-core-jvm", "99.0")),
            )
            rawArtifact(
                "org.jetbrains.kotlin",
                "kotlin-stdlib",
                "1.8.21",
                listOf("kotlin/Unit.class", "kotlin/Pair.class", "kotlin/Lazy.class"),
            )
            artifact(
                "com.example",
                "kotlinuser",
                "1.0",
                mapOf("com.example.ku.KotlinUser" to "package com.example.ku; public class KotlinUser {}"),
                listOf(TestDependency("org.jetbrains.kotlin", "kotlin-stdlib", "1.8.21")),
            )
            artifact(
                "com.example",
                "hostlib",
                "1.0",
                mapOf(
                    "org.kotlinllm.script.dependencies.HostLib" to
                        "package org.kotlinllm.script.dependencies; public class HostLib { public static String who() { return \"dependency\"; } }",
                    "org.kotlinllm.script.dependencies.OnlyInDependency" to
                        "package org.kotlinllm.script.dependencies; public class OnlyInDependency { public static String who() { return \"only in the dependency\"; } }",
                ),
            )
        }
        TestRepository(root.resolve("repo2")).apply {
            artifact("com.example", "greeter", "1.2", greeter("1.2"))
            metadata("com.example", "greeter", listOf("1.2"))
        }
        return root
    }
}
