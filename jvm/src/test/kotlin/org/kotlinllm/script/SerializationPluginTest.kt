package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.MethodOrderer
import org.junit.jupiter.api.Order
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.TestMethodOrder
import org.junit.jupiter.api.Timeout
import java.nio.file.Files
import java.nio.file.Path
import kotlin.io.path.isRegularFile
import kotlin.test.assertEquals
import kotlin.test.fail

/**
 * kotlinx.serialization in a session: the compiler plugin the build bundles is on in every session, and the runtime
 * is the user's own `@file:DependsOn`, here the real artifact that scripts/setup.sh fetched into build/libraries-m2
 * (tests/libraries.py), served as a `file:` repository so that the test runs offline. The snippets build on each
 * other, in order.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation::class)
class SerializationPluginTest {

    private val libraries: Path = run {
        val property =
            System.getProperty("kotlinllm.test.libraries")
                ?: fail("the system property kotlinllm.test.libraries is not set (jvm/pom.xml sets it)")
        val repository = Path.of(property)
        if (!repository.resolve(JSON_JAR).isRegularFile()) {
            fail("the test libraries are missing ($JSON_JAR in $repository): run scripts/setup.sh, which fetches them once")
        }
        repository
    }
    private val localRepository = Files.createTempDirectory("serialization-plugin")
    private val session = ScriptSession(
        configuration = SessionConfiguration(localRepository = localRepository, defaultRepositories = listOf(libraries.toUri().toString())),
    )

    @AfterAll
    fun close() {
        session.close()
        localRepository.toFile().deleteRecursively()
    }

    private fun value(code: String): String = runBlocking { session.execute(code) }.assertValue().value.toString()

    private fun error(code: String): String = runBlocking { session.execute(code) }.assertError(ExecutionPhase.COMPILATION).message

    @Test
    @Order(1)
    fun `a Serializable data class is encoded in the cell declaring it`() {
        assertEquals(
            "{\"name\":\"Alice\",\"age\":15}",
            value(
                "@file:DependsOn(\"$SERIALIZATION_JSON\")\nimport kotlinx.serialization.*\nimport kotlinx.serialization.json.*\n" +
                    "@Serializable data class Person(val name: String, val age: Int)\nJson.encodeToString(Person(\"Alice\", 15))",
            ),
        )
    }

    @Test
    @Order(2)
    fun `a class of an earlier cell is decoded, and serialized inside a later cell's class`() {
        assertEquals("Person(name=Bob, age=20)", value("Json.decodeFromString<Person>(\"\"\"{\"name\":\"Bob\",\"age\":20}\"\"\")"))
        assertEquals(
            "{\"members\":[{\"name\":\"A\",\"age\":1},{\"name\":\"B\",\"age\":2}]}",
            value(
                "@Serializable data class Team(val members: List<Person>)\nJson.encodeToString(Team(listOf(Person(\"A\", 1), Person(\"B\", 2))))",
            ),
        )
        assertEquals(
            "Team(members=[Person(name=C, age=3)])",
            value("Json.decodeFromString<Team>(\"\"\"{\"members\":[{\"name\":\"C\",\"age\":3}]}\"\"\")"),
        )
    }

    @Test
    @Order(3)
    fun `generic and nested classes`() {
        assertEquals(
            "{\"value\":{\"name\":\"C\",\"age\":3}}",
            value("@Serializable data class Box<T>(val value: T)\nJson.encodeToString(Box(Person(\"C\", 3)))"),
        )
        assertEquals("Box(value=7)", value("Json.decodeFromString<Box<Int>>(\"\"\"{\"value\":7}\"\"\")"))
        assertEquals(
            "{\"inner\":{\"x\":5}}",
            value(
                "@Serializable class Outer(val inner: Inner) { @Serializable data class Inner(val x: Int) }\nJson.encodeToString(Outer(Outer.Inner(5)))",
            ),
        )
        assertEquals("Inner(x=6)", value("Json.decodeFromString<Outer>(\"\"\"{\"inner\":{\"x\":6}}\"\"\").inner"))
        // a data class nested in an earlier snippet's class: its serializer crashes the compiler (KnownLimitations)
        val number = session.lastSnippetNumber + 1
        assertEquals(
            "snippet$number.kts:1:1: error: The Kotlin compiler failed internally (IllegalArgumentException: Only componentN " +
                "functions should be cached this way, but got: public open operator fun equals(other: R|kotlin/Any?|): " +
                "R|kotlin/Boolean|)\n" +
                "  | <error>Json.encodeToString(Outer.Inner(1))</error>\n" +
                "hint: a known bug of the K2 REPL compiler: code using the equals() of a data class nested in a class of an " +
                "earlier snippet cannot be compiled here; declare the data class at top level",
            error("Json.encodeToString(Outer.Inner(1))"),
        )
    }

    @Test
    @Order(4)
    fun `serializer of a class, and the hint for the companion's serializer() that the K2 REPL does not find`() {
        assertEquals("Snippet1.Person", value("serializer<Person>().descriptor.serialName"))
        val number = session.lastSnippetNumber + 1
        assertEquals(
            "snippet$number.kts:1:8: error: Unresolved reference 'serializer'.\n" +
                "  | Person.<error>serializer</error>().descriptor.serialName\n" +
                "hint: a known limitation of the K2 REPL: the serializer() that kotlinx.serialization generates is not found " +
                "on the class; write serializer<Person>() or Person.Companion.serializer()",
            error("Person.serializer().descriptor.serialName"),
        )
        assertEquals("Snippet1.Person", value("Person.Companion.serializer().descriptor.serialName"))
    }

    @Test
    @Order(5)
    fun `plain data classes of earlier cells work with the plugin on`() {
        value("data class Q(val a: Int)")
        assertEquals("Q(a=3)", value("Q(3)"))
        assertEquals("[Q(a=1), Q(a=2)]", value("(1..2).map { Q(it) }"))
    }

    private companion object {
        const val SERIALIZATION_JSON = "org.jetbrains.kotlinx:kotlinx-serialization-json:1.13.0"
        const val JSON_JAR = "org/jetbrains/kotlinx/kotlinx-serialization-json-jvm/1.13.0/kotlinx-serialization-json-jvm-1.13.0.jar"
    }
}
