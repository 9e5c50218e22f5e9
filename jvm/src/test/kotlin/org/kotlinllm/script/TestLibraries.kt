package org.kotlinllm.script

import java.nio.file.Path
import kotlin.io.path.isRegularFile
import kotlin.test.fail

/**
 * The real libraries that scripts/setup.sh fetched once (tests/libraries.py), as a repository the tests serve as a
 * `file:` one so that they run offline; fails, naming it, when one of [jars] (paths in it) is missing.
 */
fun testLibraries(vararg jars: String): Path {
    val property = System.getProperty("kotlinllm.test.libraries")
        ?: fail("the system property kotlinllm.test.libraries is not set (jvm/pom.xml sets it)")
    val repository = Path.of(property)
    for (jar in jars) {
        if (!repository.resolve(jar).isRegularFile()) {
            fail("the test libraries are missing ($jar in $repository): run scripts/setup.sh, which fetches them once")
        }
    }
    return repository
}

/** DataFrame and lets-plot as tests/libraries.py pins them, and their jars in [testLibraries]. */
object RenderedLibraries {
    const val DATAFRAME_CORE: String = "org.jetbrains.kotlinx:dataframe-core:0.15.0"
    const val LETS_PLOT: String = "org.jetbrains.lets-plot:lets-plot-kotlin-jvm:4.5.0"
    val JARS: List<String> = listOf(
        "org/jetbrains/kotlinx/dataframe-core/0.15.0/dataframe-core-0.15.0.jar",
        "org/jetbrains/lets-plot/lets-plot-kotlin-jvm/4.5.0/lets-plot-kotlin-jvm-4.5.0.jar",
    )
}

/** What reads or calls a member by its name: the calls a source scan for reflection looks for. */
val REFLECTIVE_CALLS: List<Regex> = listOf(
    """getDeclared(Field|Method|Constructor)""",
    """declared(Fields|Methods)""",
    """\.(methods|fields)\b""",
    """get(Method|Field)\(""",
    """(is|set|trySet)Accessible""",
).map(::Regex)

/** The lines of [files] that match one of [patterns], as `File.kt:line: text`. */
fun linesMatching(files: List<java.io.File>, patterns: List<Regex>): List<String> = files.flatMap { file ->
    file.readLines().withIndex()
        .filter { (_, line) -> patterns.any { it.containsMatchIn(line) } }
        .map { (i, line) -> "${file.name}:${i + 1}: ${line.trim()}" }
}
