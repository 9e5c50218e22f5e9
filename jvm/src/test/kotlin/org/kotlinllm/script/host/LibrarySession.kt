package org.kotlinllm.script.host

import org.kotlinllm.script.testLibraries
import java.nio.file.Files

/** What one snippet of a [LibrarySession] gave: its number, its outcome and what it printed on stderr. */
class Ran(val number: Int, val outcome: HostOutcome, val stderr: String)

/**
 * A host session that resolves from the real libraries the setup fetched (testLibraries, needing [jars]) only, into
 * a local repository of its own, deleted on [close].
 */
class LibrarySession(name: String, vararg jars: String) : AutoCloseable {
    private val localRepository = Files.createTempDirectory(name)
    val session: HostSession = HostSession.create(
        emptyMap(),
        HostSettings(localRepository = localRepository.toString(), repositories = listOf(testLibraries(*jars).toUri().toString())),
    )
    private val events = EventReader(session)

    /** Runs [code] as the next snippet. */
    fun run(code: String): Ran {
        val number = session.submit(code).snippetNumber
        val outcome = events.settled(number)
        val stderr = events.events.filterIsInstance<OutputEvent>().filter { it.snippetNumber == number && it.stream == "stderr" }
        return Ran(number, outcome, stderr.joinToString("") { it.text })
    }

    override fun close() {
        session.close()
        localRepository.toFile().deleteRecursively()
    }
}
