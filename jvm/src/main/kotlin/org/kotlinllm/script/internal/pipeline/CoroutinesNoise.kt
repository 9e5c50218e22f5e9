package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.diagnostics.CompilerTexts
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.DiagnosticNames
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.internal.compiler.Compilation
import org.kotlinllm.script.internal.compiler.ReplCompilerHost
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet
import java.io.File

/**
 * kotlinc's own words where the default import `kotlinx.coroutines.*` changed them: calling what is no function
 * (`s.length()`) makes the compiler try the coroutines' `CoroutineDispatcher.invoke`, a missing `plus` their
 * `CoroutineScope.plus`, and report that inapplicable candidate (and an uninferred `T`) instead of "cannot be invoked
 * as a function" or the unresolved member, which the hints then explain. Those errors are replaced by kotlinc's where
 * the snippet, compiled again without the import (failing again, leaving nothing), reports them at the same places.
 */
internal class CoroutinesNoise(private val compiler: RewritingCompiler, private val compilerHost: ReplCompilerHost) {

    fun withoutNoise(
        reported: List<Diagnostic>,
        fileName: String,
        parsed: ParsedSnippet,
        classpath: List<File>,
        libraries: Collection<String>,
    ): List<Diagnostic> {
        val noisy = reported.filter { diagnostic ->
            diagnostic.name == DiagnosticNames.UNRESOLVED_REFERENCE_WRONG_RECEIVER &&
                CompilerTexts.COROUTINES_CANDIDATE.containsMatchIn(diagnostic.message)
        }
            .mapNotNull { it.range }.toSet()
        if (noisy.isEmpty()) return reported
        val again = compiler.compileWithout(fileName, parsed, classpath, libraries, listOf(COROUTINES_IMPORT))
        if (again is Compilation.Compiled) compilerHost.discard(again)
        if (again !is Compilation.Failed) return reported
        // "cannot be invoked as a function", or a member that is not there; not an unresolved name without a receiver:
        // the REPL reports a property of the same snippet called as a function (`val n = 5; n()`) so, which would
        // mislead more than the noise
        val plain = CompilerReports.of(again.diagnostics, fileName).filter {
            it.range in noisy && (
                it.name == DiagnosticNames.FUNCTION_EXPECTED ||
                    (it.name == DiagnosticNames.UNRESOLVED_REFERENCE && CompilerTexts.RECEIVER_TYPE.containsMatchIn(it.message))
                )
        }
        if (plain.isEmpty()) return reported
        val first = reported.indexOfFirst { it.range in noisy }
        val kept = reported.filterNot { it.severity == Severity.ERROR && it.range in noisy }
        return kept.take(first) + plain + kept.drop(first)
    }

    private companion object {
        const val COROUTINES_IMPORT = "kotlinx.coroutines.*"
    }
}
