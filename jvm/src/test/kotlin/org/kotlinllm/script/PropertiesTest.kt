package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.kotlinllm.script.host.EventReader
import org.kotlinllm.script.host.HostSession
import org.kotlinllm.script.host.HostSettings
import org.kotlinllm.script.runtime.ScriptScope
import java.time.Clock
import java.time.Instant
import java.time.ZoneOffset
import kotlin.reflect.typeOf
import kotlin.test.assertEquals
import kotlin.time.Duration.Companion.seconds

/** Properties provided to the snippets, and the ones rejected. */
class PropertiesTest {

    private val fixedClock: Clock = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC)

    @Test
    fun `provided properties are typed with their type arguments, nullable, or as a supertype`() = runBlocking {
        ScriptSession {
            "greeting" provides "Hello"
            "names" provides listOf("Alice", "Bob")
            "scores" provides mapOf("Alice" to 3)
            provide<String?>("name", null)
            provide<Clock>("clock", fixedClock)
            "timeout" provides 5.seconds
        }.use { session ->
            assertEquals("HELLO", session.execute("greeting.uppercase()").assertValue().value)
            assertEquals("ALICE", session.execute("names.first().uppercase()").assertValue().value)
            assertEquals(4, session.execute("scores.getValue(\"Alice\") + 1").assertValue().value)
            assertEquals("nobody", session.execute("name ?: \"nobody\"").assertValue().value)
            assertEquals("2026-01-02T03:04:05Z", session.execute("clock.instant().toString()").assertValue().value)
            assertEquals(10_000L, session.execute("(timeout * 2).inWholeMilliseconds").assertValue().value)
            // the supertype is what the snippets see: a Clock, not the fixed clock's own class
            val error = session.execute("val c: java.time.Clock = clock\nclock.hashCode().let { clock.zone }\nclock.fixedInstant")
                .assertError(ExecutionPhase.COMPILATION)
            assertEquals(
                "snippet7.kts:3:7: error: Unresolved reference 'fixedInstant' on receiver of type 'Clock'.\n  | clock.<error>fixedInstant</error>",
                error.message,
            )
        }
    }

    @Test
    fun `a property list can be built dynamically`() = runBlocking {
        ScriptSession(listOf(property("greeting", "Hello"), property("count", 3))).use { session ->
            assertEquals("Hello, Hello, Hello", session.execute("List(count) { greeting }.joinToString()").assertValue().value)
        }
    }

    @Test
    fun `the Java and Python entry point types each property by its value`() {
        HostSession.create(
            mapOf("text" to "abc", "number" to 41L, "items" to listOf(1, "two"), "settings" to mapOf("k" to "v"), "nothing" to null),
            HostSettings(null, null, null, null),
        ).use { session ->
            session.submit("\"\${text.uppercase()} \${number + 1} \${items.size} \${settings[\"k\"]} \$nothing\"")
            assertEquals("ABC 42 2 v null", EventReader(session).settled(1).result.assertValue().value)
        }
    }

    private class PrivateType

    @Test
    fun `invalid properties are rejected with a message naming the property and why`() {
        class LocalType

        fun rejected(vararg properties: ScriptProperty<*>): String =
            assertThrows<IllegalArgumentException> { ScriptSession(properties.toList()).close() }.message.orEmpty()

        assertEquals("Invalid property 'not valid': the name is not a Kotlin identifier", rejected(property("not valid", 1)))
        assertEquals("Invalid property 'fun': the name is not a Kotlin identifier", rejected(property("fun", 1)))
        assertEquals("Invalid property 'twice': the name is provided more than once", rejected(property("twice", 1), property("twice", 2)))
        assertEquals(
            "Invalid property 'await': the name is a member of the ScriptScope receiving the snippets",
            rejected(property("await", 1)),
        )
        assertEquals(
            "Invalid property 'coroutineContext': the name is a member of the ScriptScope receiving the snippets",
            rejected(property("coroutineContext", 1)),
        )
        assertEquals(
            "Invalid property 'count': the value of java.lang.String is not of the type kotlin.Int",
            rejected(ScriptProperty("count", typeOf<Int>(), "three")),
        )
        assertEquals(
            "Invalid property 'name': the value is null, but the type kotlin.String is not nullable",
            rejected(ScriptProperty("name", typeOf<String>(), null)),
        )
        assertEquals(
            "Invalid property 'secret': the type org.kotlinllm.script.PropertiesTest.PrivateType is not public, " +
                "so the snippets cannot refer to it",
            rejected(property("secret", PrivateType())),
        )
        assertEquals(
            "Invalid property 'local': the type LocalType is a local class, which the snippets cannot refer to",
            rejected(property("local", LocalType())),
        )
        assertEquals(
            "Invalid property 'hidden': the type argument org.kotlinllm.script.PropertiesTest.PrivateType is not public, " +
                "so the snippets cannot refer to it",
            rejected(property("hidden", listOf(PrivateType()))),
        )
    }
}
