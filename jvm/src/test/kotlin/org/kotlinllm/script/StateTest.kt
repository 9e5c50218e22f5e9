package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.test.assertSame
import kotlin.test.assertTrue

/** What a session keeps between snippets. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StateTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun run(code: String): ScriptResult = runBlocking { session.execute(code) }

    private fun value(code: String): Any? = run(code).assertValue().value

    @Test
    fun `vals vars funs classes objects typealiases and imports persist`() {
        run(
            """
            import kotlin.math.sqrt
            val stateVal = 2
            var stateVar = 3
            fun stateFun(x: Int) = x * 10
            data class StatePoint(val x: Int, val y: Int)
            object StateObject { val NAME = "obj" }
            enum class StateColor { RED, BLUE }
            interface StateShape { fun area(): Double }
            typealias StateMap = Map<String, Int>
            """.trimIndent(),
        ).assertValue()
        run("stateVar += stateVal").assertValue()
        assertEquals(50, value("stateFun(stateVar)"))
        assertEquals("StatePoint(x=1, y=2)", value("StatePoint(1, 2)").toString())
        assertEquals("obj", value("StateObject.NAME"))
        assertEquals("BLUE", value("StateColor.BLUE").toString())
        assertEquals(4.0, value("object : StateShape { override fun area() = 4.0 }.area()"))
        assertEquals(mapOf("a" to 1), value("val m: StateMap = mapOf(\"a\" to 1)\nm"))
        assertEquals(9.0, value("sqrt(81.0)"))
    }

    @Test
    fun `a redeclaration is seen later while earlier functions keep what they were compiled against`() {
        run("fun greetR() = \"hello v1\"\nfun shoutR(): String = greetR().uppercase()").assertValue()
        run("fun greetR() = \"hello v2\"").assertValue()
        assertEquals("hello v2 / HELLO V1", value("greetR() + \" / \" + shoutR()"))
        run("fun shoutR(): String = greetR().uppercase()").assertValue()
        assertEquals("HELLO V2", value("shoutR()"))
        run("val redeclared = 1\nfun readRedeclared() = redeclared").assertValue()
        run("val redeclared = \"two\"").assertValue()
        assertEquals("two / 1", value("\"\$redeclared / \${readRedeclared()}\""))
    }

    @Test
    fun `a snippet that fails to compile leaves no declarations behind`() {
        val error = run("val leaked = 1\nfun leakedFun() = 2\nclass LeakedClass\nasdf").assertError(ExecutionPhase.COMPILATION)
        assertTrue("Unresolved reference 'asdf'" in error.message, error.message)
        for (name in listOf("leaked", "leakedFun()", "LeakedClass()")) {
            val unresolved = run(name).assertError(ExecutionPhase.COMPILATION)
            assertTrue("Unresolved reference '${name.removeSuffix("()")}'" in unresolved.message, unresolved.message)
        }
        run("val leaked = \"now declared\"").assertValue()
        assertEquals("now declared", value("leaked"))
    }

    @Test
    fun `a failing first snippet leaves nothing behind and breaks nothing`() = runBlocking {
        ScriptSession().use { fresh ->
            fresh.execute("val y = 2\nclass FirstClass\nasdf").assertError(ExecutionPhase.COMPILATION)
            val unresolved = fresh.execute("y").assertError(ExecutionPhase.COMPILATION)
            assertEquals("snippet2.kts:1:1: error: Unresolved reference 'y'.\n  | <error>y</error>", unresolved.message)
            fresh.execute("val z = 3").assertValue()
            assertEquals(3, fresh.execute("z").assertValue().value)
            assertEquals(
                "ok",
                fresh.execute("class FirstClass { override fun toString() = \"ok\" }\nFirstClass().toString()").assertValue().value,
            )
        }
    }

    @Test
    fun `twenty failed snippets in a row leave the session working`() {
        repeat(20) { i -> run("val failing$i = 1\nnotDeclared$i()").assertError(ExecutionPhase.COMPILATION) }
        assertEquals(3, value("1 + 2"))
        run("failing7").assertError(ExecutionPhase.COMPILATION)
    }

    @Test
    fun `a snippet that throws keeps what it declared`() {
        run("val beforeThrow = 1\nfun keptFun() = beforeThrow + 1\nerror(\"boom\")").assertError(ExecutionPhase.EVALUATION)
        assertEquals(2, value("keptFun()"))
        assertEquals(1, value("beforeThrow"))
    }

    @Test
    fun `the last expression is the value, Unit without one, null as null`() {
        assertEquals(42, value("val unused = 1\n40 + 2"))
        assertSame(Unit, value("val onlyDeclaration = 1"))
        assertSame(Unit, value("println(\"printed\")"))
        assertNull(value("null"))
        assertEquals(listOf(1, 2), value("listOf(1, 2)"))
    }

    @Test
    fun `a value of a value class type comes back boxed`() {
        val duration = value("import kotlin.time.Duration.Companion.seconds\n5.seconds")
        assertEquals("5s", duration.toString())
        assertEquals("kotlin.time.Duration", duration?.javaClass?.name)
    }

    @Test
    fun `snippets compile against the whole host classpath`() {
        assertEquals("org.kotlinllm.script.ScriptSession", value("org.kotlinllm.script.ScriptSession::class.qualifiedName"))
        assertEquals("ok", value("import io.github.oshai.kotlinlogging.KotlinLogging\nKotlinLogging.logger(\"x\").name.let { \"ok\" }"))
        assertEquals(3, value("kotlinx.coroutines.runBlocking { 3 }"))
    }
}
