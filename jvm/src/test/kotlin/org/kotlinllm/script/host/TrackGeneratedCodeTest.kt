package org.kotlinllm.script.host

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.RenderedLibraries
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.testLibraries
import java.nio.file.Files
import kotlin.test.assertEquals

/**
 * `%trackExecution generated` shows the code the engine generates after a cell (DataFrame's column accessors, from
 * the real `dataframe-core` that scripts/setup.sh fetched), not the cell's own.
 */
@Timeout(300)
class TrackGeneratedCodeTest {

    @Test
    fun `generated shows the column accessors of a declared frame, not the cell`() {
        val localRepository = Files.createTempDirectory("track-generated")
        val repository = testLibraries(RenderedLibraries.JARS[0]).toUri().toString()
        HostSession.create(emptyMap(), HostSettings(localRepository = localRepository.toString(), repositories = listOf(repository)))
            .use { session ->
                val events = EventReader(session)
                events.settled(session.submit("%trackExecution generated").snippetNumber).result.assertValue()
                val number = session.submit(
                    "@file:DependsOn(\"${RenderedLibraries.DATAFRAME_CORE}\")\nimport org.jetbrains.kotlinx.dataframe.api.*\n" +
                        "val df = dataFrameOf(\"name\", \"age\")(\"Alice\", 15, \"Bob\", 20)",
                ).snippetNumber
                events.settled(number).result.assertValue()
                val shown = events.events.filterIsInstance<OutputEvent>().filter { it.snippetNumber == number }
                val expected = """
                    |stdout: Executing:
                    |@DataSchema
                    |interface _DataFrameType { }
                    |
                    |val ColumnsContainer<_DataFrameType>.age: DataColumn<Int> @JvmName("_DataFrameType_age") get() = this["age"] as DataColumn<Int>
                    |val DataRow<_DataFrameType>.age: Int @JvmName("_DataFrameType_age") get() = this["age"] as Int
                    |val ColumnsContainer<_DataFrameType>.name: DataColumn<String> @JvmName("_DataFrameType_name") get() = this["name"] as DataColumn<String>
                    |val DataRow<_DataFrameType>.name: String @JvmName("_DataFrameType_name") get() = this["name"] as String
                    |val `df` = (org.kotlinllm.script.runtime.ProvidedValues.get(<session>L, "df") as org.jetbrains.kotlinx.dataframe.DataFrame<*>).cast<_DataFrameType>()
                    |
                """.trimMargin()
                // the generated snippet's code, and nothing of the cell's own; the session's number left out
                val printed = shown.joinToString("") {
                    "${it.stream}: ${it.text}"
                }.replace(Regex("""get\(\d+L, "df"\)"""), "get(<session>L, \"df\")")
                assertEquals(expected, printed)
            }
        localRepository.toFile().deleteRecursively()
    }
}
