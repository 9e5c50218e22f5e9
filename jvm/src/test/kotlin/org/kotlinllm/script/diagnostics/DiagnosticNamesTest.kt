package org.kotlinllm.script.diagnostics

import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.TestInstance
import org.kotlinllm.script.internal.compiler.Compilation
import org.kotlinllm.script.internal.compiler.Evaluation
import org.kotlinllm.script.internal.compiler.ReplCompilerHost
import org.kotlinllm.script.testLibraries
import java.lang.reflect.Modifier
import kotlin.script.experimental.api.ScriptDiagnostic
import kotlin.script.experimental.host.toScriptSource
import kotlin.test.assertEquals
import kotlin.test.assertIs
import kotlin.test.assertNotNull
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * The compiler the engine is built with still says what the engine decides on: each name of [DiagnosticNames] is the
 * name of the error a snippet that makes it gets, and each pattern of [CompilerTexts] still finds its detail in the
 * real message or crash. A compiler that renames or rewords one fails here, naming it, rather than silently turning
 * a hint or a second attempt off.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DiagnosticNamesTest {

    private val host = ReplCompilerHost(javaClass.classLoader)
    private var number = 0

    @AfterAll
    fun close() = host.close()

    /** A snippet making the error [name] where [at] first occurs in it, compiled without the default imports [without]. */
    private class NameCase(val name: String, val code: String, val at: String, val without: Set<String> = emptySet())

    private val nameCases = listOf(
        NameCase(DiagnosticNames.UNRESOLVED_REFERENCE, "val unresolvedB = missingName", "missingName"),
        NameCase(DiagnosticNames.UNRESOLVED_IMPORT, "import java.time.NoSuchThing", "NoSuchThing"),
        // the default import kotlinx.coroutines.* offers its CoroutineDispatcher.invoke
        NameCase(DiagnosticNames.UNRESOLVED_REFERENCE_WRONG_RECEIVER, "val wrongS = \"abc\"\nwrongS.length()", "length()"),
        NameCase(DiagnosticNames.FUNCTION_EXPECTED, "val expectedS = \"abc\"\nexpectedS.length()", "length()", setOf(COROUTINES)),
        NameCase(DiagnosticNames.CANNOT_INFER_PARAMETER_TYPE, "val inferredE = emptyList()", "emptyList"),
        NameCase(DiagnosticNames.CANNOT_INFER_VALUE_PARAMETER_TYPE, "val inferredL = listOf { x -> x }", "x ->"),
        NameCase(DiagnosticNames.ILLEGAL_SUSPEND_FUNCTION_CALL, "delay(1)", "delay"),
        NameCase(DiagnosticNames.ILLEGAL_SUSPEND_PROPERTY_ACCESS, "fun context() = kotlin.coroutines.coroutineContext", "coroutineContext"),
        NameCase(DiagnosticNames.WRONG_MODIFIER_CONTAINING_DECLARATION, "companion object Named { val x = 1 }", "companion"),
        NameCase(DiagnosticNames.ASSIGNMENT_TYPE_MISMATCH, "var assignedN = 1\nassignedN = \"a\"", "= \"a\""),
    )

    /**
     * A snippet whose error [name] has a message in which [pattern] finds [detail] (its group 1, or the whole match
     * when it has no group), after [declarations] compiled and run; [libraries] are jars of the test libraries.
     */
    private class TextCase(
        val pattern: Regex,
        val name: String,
        val code: String,
        val detail: String,
        val declarations: List<String> = emptyList(),
        val libraries: List<String> = emptyList(),
    )

    private val textCases = listOf(
        TextCase(CompilerTexts.RECEIVER_TYPE, DiagnosticNames.UNRESOLVED_REFERENCE, "listOf(1).fitler { it > 1 }", "List<Int>"),
        TextCase(
            CompilerTexts.COROUTINES_CANDIDATE,
            DiagnosticNames.UNRESOLVED_REFERENCE_WRONG_RECEIVER,
            "val invokedS = \"abc\"\ninvokedS.length()",
            "CoroutineDispatcher.invoke(",
        ),
        TextCase(
            CompilerTexts.COROUTINES_CANDIDATE,
            DiagnosticNames.UNRESOLVED_REFERENCE_WRONG_RECEIVER,
            "class NoPlus\nNoPlus().plus(1)",
            "CoroutineScope.plus(",
        ),
        // the engine declares such a marker and var for the column accessors of a frame (DataFrameAccessors)
        TextCase(
            CompilerTexts.FRAME_MARKER_EXPECTED,
            DiagnosticNames.ASSIGNMENT_TYPE_MISMATCH,
            "val otherFrame: DataFrame<*> = frame\nframe = otherFrame",
            "_DataFrameType",
            declarations = listOf(
                "import org.jetbrains.kotlinx.dataframe.DataFrame\ninterface _DataFrameType\nlateinit var frame: DataFrame<_DataFrameType>",
            ),
            libraries = listOf(DATA_FRAME_CORE),
        ),
    )

    /** A snippet that crashes the compiler with a cause in whose message [pattern] finds [detail], after [declarations] ran. */
    private class CrashCase(val pattern: Regex, val code: String, val detail: String, val declarations: List<String>)

    private val crashCases = listOf(
        CrashCase(CompilerTexts.UNKNOWN_CONSTANT, "CrashLimits.MAX", "MAX", listOf("object CrashLimits { const val MAX = 3 }")),
        CrashCase(
            CompilerTexts.NESTED_DATA_MEMBER,
            "crashNested.toString()",
            "toString",
            listOf("class CrashHolder { data class Nested(val n: Int) }\nval crashNested = CrashHolder.Nested(1)"),
        ),
    )

    /** The names of the patterns of [CompilerTexts], by pattern. */
    private val textNames: Map<Regex, String> = CompilerTexts::class.java.declaredFields
        .filter { Modifier.isStatic(it.modifiers) && it.type == Regex::class.java && it.trySetAccessible() }
        .associate { it.get(null) as Regex to it.name }

    @Test
    fun `every name and every text the engine reads has a snippet here`() {
        val names = DiagnosticNames::class.java.declaredFields
            .filter { Modifier.isStatic(it.modifiers) && it.type == String::class.java }
            .map { it.get(null) as String }
        assertEquals(names.sorted(), nameCases.map { it.name }.sorted(), "the names of DiagnosticNames and of the snippets here")
        assertTrue(textNames.isNotEmpty(), "the patterns of CompilerTexts are read")
        val checked = (textCases.map { it.pattern } + crashCases.map { it.pattern }).map { textNames[it] }
        assertEquals(textNames.values.sorted(), checked.distinct().sortedBy { it }, "the patterns of CompilerTexts and those checked here")
    }

    @TestFactory
    fun `each name is the one the compiler reports`(): List<DynamicTest> = nameCases.map { case ->
        DynamicTest.dynamicTest(case.name) {
            val errors = errors(case.code, case.without)
            val offset = case.code.indexOf(case.at).also { check(it >= 0) { "'${case.at}' is not in the snippet" } }
            val named = errors.filter { case.code.offsetOf(it) == offset }.map { CompilerDiagnostics.name(it) }
            assertTrue(
                case.name in named,
                "the compiler reports ${case.name} at '${case.at}' of ${case.code.quoted()}; it reported:\n" + errors.describe(),
            )
        }
    }

    @TestFactory
    fun `each text pattern finds its detail in the compiler's message`(): List<DynamicTest> = textCases.map { case ->
        val field = textNames[case.pattern]
        DynamicTest.dynamicTest("$field: ${case.detail}") {
            host.addLibraries(case.libraries.map { testLibraries(it).resolve(it).toFile() })
            case.declarations.forEach(::declare)
            val errors = errors(case.code)
            val found = errors.filter { CompilerDiagnostics.name(it) == case.name }
                .firstNotNullOfOrNull { case.pattern.find(CompilerDiagnostics.text(it)) }
            assertNotNull(
                found,
                "$field finds nothing in the ${case.name} of ${case.code.quoted()}; the compiler reported:\n" + errors.describe(),
            )
            assertEquals(case.detail, found.groupValues.getOrNull(1) ?: found.value, "what $field finds")
        }
    }

    @TestFactory
    fun `each crash text finds its detail in the compiler's crash`(): List<DynamicTest> = crashCases.map { case ->
        val field = textNames[case.pattern]
        DynamicTest.dynamicTest("$field: ${case.detail}") {
            case.declarations.forEach(::declare)
            val crashed = assertIs<Compilation.Crashed>(compile(case.code), "${case.code.quoted()} still crashes the compiler")
            val messages = generateSequence(crashed.cause) { it.cause }.map { it.message.orEmpty() }.toList()
            val found = messages.firstNotNullOfOrNull { case.pattern.find(it) }
            assertNotNull(found, "$field finds nothing in the crash of ${case.code.quoted()}:\n" + messages.joinToString("\n"))
            assertEquals(case.detail, found.groupValues[1], "what $field finds")
        }
    }

    private fun compile(code: String, without: Set<String> = emptySet()): Compilation =
        host.compile(code.toScriptSource("snippet${++number}.kts"), withoutImports = without)

    /** Compiles and runs [code], whose declarations later snippets use. */
    private fun declare(code: String) {
        val compiled = assertIs<Compilation.Compiled>(compile(code), code)
        val evaluation = host.evaluate(compiled)
        assertTrue(evaluation !is Evaluation.Broken && evaluation !is Evaluation.Threw, code)
    }

    /** The errors of [code], which fails to compile. */
    private fun errors(code: String, without: Set<String> = emptySet()): List<ScriptDiagnostic> {
        val failed = assertIs<Compilation.Failed>(compile(code, without), "${code.quoted()} fails to compile")
        return failed.diagnostics.filter { it.severity >= ScriptDiagnostic.Severity.ERROR }
            .ifEmpty { fail("${code.quoted()} failed without an error") }
    }

    private companion object {
        const val COROUTINES = "kotlinx.coroutines.*"
        const val DATA_FRAME_CORE = "org/jetbrains/kotlinx/dataframe-core/0.15.0/dataframe-core-0.15.0.jar"

        fun String.quoted(): String = "'" + replace("\n", "\\n") + "'"

        /** The offset in this snippet where [diagnostic] starts. */
        fun String.offsetOf(diagnostic: ScriptDiagnostic): Int? {
            val start = diagnostic.location?.start ?: return null
            return SourceText(this).offset(start.line, start.col)
        }

        fun List<ScriptDiagnostic>.describe(): String =
            joinToString("\n") { diagnostic -> "  ${diagnostic.location?.start?.let { "${it.line}:${it.col}" }} ${diagnostic.message}" }
    }
}
