package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import java.io.File
import kotlin.test.assertTrue

/** The engine logs compilation and evaluation at DEBUG, with timings, through SLF4J (slf4j-simple in the tests). */
class LoggingTest {

    @Test
    fun `compile and evaluation are logged with their timings`() = runBlocking {
        ScriptSession().use { session ->
            session.execute("val loggedSnippet = 1\nloggedSnippet").assertValue()
        }
        val log = File(checkNotNull(System.getProperty("org.slf4j.simpleLogger.logFile")) { "set by the pom" }).readText()
        val compiled = Regex("""DEBUG org\.kotlinllm\.script\.internal\.compiler\.ReplCompilerHost - compiled snippet1\.kts in \d+ ms""")
        val evaluated = Regex("""DEBUG org\.kotlinllm\.script\.internal\.compiler\.ReplCompilerHost - evaluated in \d+ ms""")
        assertTrue(compiled.containsMatchIn(log), "compile logged")
        assertTrue(evaluated.containsMatchIn(log), "evaluation logged")
    }
}
