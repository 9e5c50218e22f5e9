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
