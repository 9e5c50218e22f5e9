package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.Timeout
import kotlin.test.assertEquals

/** A snippet calling `System.exit`, `Runtime.exit`, `Runtime.halt` or `exitProcess` gets an error; the session lives on. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class ExitRefusalTest {

    private val session = ScriptSession()

    @BeforeAll
    fun declare() {
        runBlocking { session.execute("val keep = 42") }.assertValue()
    }

    @AfterAll
    fun close() = session.close()

    /** The error of [code], with its snippet's number as N. */
    private fun error(code: String): String {
        val message = runBlocking { session.execute(code) }.assertError(ExecutionPhase.EVALUATION).message
        return message.replace("snippet${session.lastSnippetNumber}.kts", "snippetN.kts")
    }

    private fun assertKept() {
        assertEquals(42, runBlocking { session.execute("keep") }.assertValue().value)
    }

    private fun refused(call: String) = "$REFUSED: $call was refused: $WHY"

    @Test
    fun `a direct call is refused where it is`() {
        for ((code, call) in listOf(
            "System.exit(0)" to "System.exit(0)",
            "System.exit(3)" to "System.exit(3)",
            "Runtime.getRuntime().exit(4)" to "Runtime.exit(4)",
            "Runtime.getRuntime().halt(1)" to "Runtime.halt(1)",
            "kotlin.system.exitProcess(2)" to "System.exit(2)",
        )) {
            assertEquals("${refused(call)}\n  at <snippet body>(snippetN.kts:2)\n  | $code", error("val before = 1\n$code"))
            assertKept()
        }
    }

    @Test
    fun `a call in a lambda is refused`() {
        assertEquals(
            "${refused("System.exit(5)")}\n" +
                "  at <snippet body>(snippetN.kts:1)\n  | val quit = { code: Int -> System.exit(code) }\n" +
                "  at <snippet body>(snippetN.kts:2)\n  | quit(5)",
            error("val quit = { code: Int -> System.exit(code) }\nquit(5)"),
        )
        assertEquals(
            "${refused("Runtime.halt(6)")}\n  at <snippet body>(snippetN.kts:1)\n  | Runnable { Runtime.getRuntime().halt(6) }.run()",
            error("Runnable { Runtime.getRuntime().halt(6) }.run()"),
        )
        assertEquals(
            "${refused("System.exit(7)")}\n  at <snippet body>(snippetN.kts:1)\n  | listOf(7).forEach { kotlin.system.exitProcess(it) }",
            error("listOf(7).forEach { kotlin.system.exitProcess(it) }"),
        )
        assertKept()
    }

    @Test
    fun `a method reference is refused`() {
        for ((code, call) in listOf(
            "listOf(1).forEach(System::exit)" to "System.exit(1)",
            "val exit: (Int) -> Unit = System::exit\nexit(8)" to "System.exit(8)",
            "java.util.function.IntConsumer(System::exit).accept(9)" to "System.exit(9)",
            "listOf(10).forEach(Runtime.getRuntime()::halt)" to "Runtime.halt(10)",
            "java.util.function.IntConsumer(Runtime.getRuntime()::exit).accept(11)" to "Runtime.exit(11)",
            "val halt: (Runtime, Int) -> Unit = Runtime::halt\nhalt(Runtime.getRuntime(), 12)" to "Runtime.halt(12)",
            "import kotlin.system.exitProcess\nval quit: (Int) -> Nothing = ::exitProcess\nquit(14)" to "System.exit(14)",
        )) {
            val message = error(code)
            assertEquals(refused(call), message.lines().first(), message)
            val last = code.lines().last()
            assertEquals(
                "  at <snippet body>(snippetN.kts:${code.lines().size})\n  | $last",
                message.lines().takeLast(2).joinToString("\n"),
                message,
            )
            assertKept()
        }
    }

    @Test
    fun `a reflective call is refused`() {
        val int = "Int::class.javaPrimitiveType"
        val type = "java.lang.invoke.MethodType.methodType(Void.TYPE, $int)"
        val lookup = "java.lang.invoke.MethodHandles.lookup()"
        for ((code, call) in listOf(
            "System::class.java.getMethod(\"exit\", $int).invoke(null, 0)" to "System.exit(0)",
            "Runtime::class.java.getMethod(\"halt\", $int).invoke(Runtime.getRuntime(), 1)" to "Runtime.halt(1)",
            "Runtime::class.java.getDeclaredMethod(\"exit\", $int).invoke(Runtime.getRuntime(), 2)" to "Runtime.exit(2)",
            "$lookup.findStatic(System::class.java, \"exit\", $type).invoke(3)" to "a method handle of System.exit(int)",
            "$lookup.findVirtual(Runtime::class.java, \"exit\", $type)" to "a method handle of Runtime.exit(int)",
            "java.lang.invoke.MethodHandles.publicLookup().findVirtual(Runtime::class.java, \"halt\", $type)" to
                "a method handle of Runtime.halt(int)",
            "$lookup.unreflect(System::class.java.getMethod(\"exit\", $int))" to "a method handle of System.exit(int)",
        )) {
            assertEquals("${refused(call)}\n  at <snippet body>(snippetN.kts:1)\n  | $code", error(code))
            assertKept()
        }
    }

    @Test
    fun `other reflective calls work as before`() {
        val code = """
            val length = String::class.java.getMethod("length").invoke("abc")
            val max = java.lang.invoke.MethodHandles.lookup().findStatic(Math::class.java, "max",
                java.lang.invoke.MethodType.methodType(Int::class.javaPrimitiveType, Int::class.javaPrimitiveType, Int::class.javaPrimitiveType))
            val size = java.lang.invoke.MethodHandles.lookup().findVirtual(List::class.java, "size",
                java.lang.invoke.MethodType.methodType(Int::class.javaPrimitiveType))
            val abs = java.lang.invoke.MethodHandles.lookup().unreflect(Math::class.java.getMethod("abs", Long::class.javaPrimitiveType))
            listOf(length, max.invoke(2, 5), size.invoke(listOf(1, 2)), abs.invoke(-4L)).toString()
        """.trimIndent()
        assertEquals("[3, 5, 2, 4]", runBlocking { session.execute(code) }.assertValue().value)
        val missing = runBlocking { session.execute("System::class.java.getMethod(\"exit\", Int::class.javaPrimitiveType).invoke(null)") }
            .assertError(ExecutionPhase.EVALUATION).message
        assertEquals("org.kotlinllm.script.runtime.ExitRefusedException: System.exit() was refused: $WHY", missing.lines().first())
    }

    @Test
    fun `a call in a function of an earlier snippet is refused`() {
        runBlocking { session.execute("fun shutDown(code: Int) {\n    println(\"bye\")\n    System.exit(code)\n}") }.assertValue()
        val declaring = session.lastSnippetNumber
        assertEquals(
            "${refused("System.exit(13)")}\n" +
                "  at shutDown(snippet$declaring.kts:3)\n" +
                "  |     System.exit(code)\n" +
                "  at <snippet body>(snippetN.kts:1)\n" +
                "  | shutDown(13)",
            error("shutDown(13)"),
        )
        assertKept()
    }

    private companion object {
        const val REFUSED = "org.kotlinllm.script.runtime.ExitRefusedException"
        const val WHY = "a snippet cannot end the kernel; to end the session, restart the kernel"
    }
}
