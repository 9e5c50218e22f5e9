package org.kotlinllm.script.internal.pipeline

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.internal.compiler.Compilation
import org.kotlinllm.script.internal.compiler.ReplCompilerHost
import org.kotlinllm.script.internal.compiler.source.FrameAssignments
import org.kotlinllm.script.internal.compiler.source.InternalModifiers
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet
import org.kotlinllm.script.internal.compiler.source.SecondAttempt
import org.kotlinllm.script.internal.compiler.source.ShadowingImports
import org.kotlinllm.script.internal.compiler.source.SnippetRewrite
import org.kotlinllm.script.internal.compiler.source.SuspendingStatements
import org.kotlinllm.script.internal.compiler.source.TopLevelCompanions
import java.io.File
import kotlin.script.experimental.host.toScriptSource

private val logger = KotlinLogging.logger {}

/**
 * Compiles a snippet as the REPL compiler can take it: its `internal` modifiers commented out ([InternalModifiers]),
 * the names it shares with default imports hidden ([ShadowingImports]), and, when that fails on a compiler limitation
 * that one of [secondAttempts] avoids, its rewrite instead. Diagnostics are located in the user's text; a failed
 * compilation leaves nothing behind, and the snippet keeps its file name.
 */
internal class RewritingCompiler(private val compilerHost: ReplCompilerHost, private val shadowingImports: ShadowingImports) {

    /** Rewrites tried in turn when a snippet's first compilation fails. */
    private val secondAttempts: List<SecondAttempt> = listOf(SuspendingStatements, TopLevelCompanions, FrameAssignments)

    fun compile(fileName: String, parsed: ParsedSnippet, classpath: List<File>, libraries: Collection<String>): Compilation {
        val public = insertions(parsed)
        val imports = imports(parsed, libraries)
        val hidden = hiddenImports(parsed)
        val first = compile(SnippetRewrite(parsed.source, public), fileName, classpath, imports, hidden)
        if (first !is Compilation.Failed) return first
        val rewrite = secondAttempts.firstNotNullOfOrNull { it.rewrite(parsed, first.diagnostics) }?.with(public) ?: return first
        logger.debug { "compiling $fileName again, rewritten" }
        return when (val second = compile(rewrite, fileName, classpath, imports, hidden)) {
            is Compilation.Compiled -> second
            is Compilation.Failed -> Compilation.Failed(rewrite.failed(first.diagnostics, second.diagnostics))
            is Compilation.Crashed -> first
        }
    }

    /** Compiles [parsed] as [compile] does first, without the default imports [withoutImports] too. */
    fun compileWithout(
        fileName: String,
        parsed: ParsedSnippet,
        classpath: List<File>,
        libraries: Collection<String>,
        withoutImports: List<String>,
    ): Compilation = compile(rewriteOf(parsed), fileName, classpath, imports(parsed, libraries), hiddenImports(parsed) + withoutImports)

    private fun insertions(parsed: ParsedSnippet) = InternalModifiers.insertions(parsed) + shadowingImports.hidingInsertions(parsed)

    private fun rewriteOf(parsed: ParsedSnippet) = SnippetRewrite(parsed.source, insertions(parsed))

    private fun imports(parsed: ParsedSnippet, libraries: Collection<String>) = shadowingImports.imports(parsed) + libraries

    private fun hiddenImports(parsed: ParsedSnippet) = shadowingImports.hiddenImports(parsed)

    /** Compiles [rewrite]'s text, its diagnostics located in the user's text. */
    private fun compile(
        rewrite: SnippetRewrite,
        fileName: String,
        classpath: List<File>,
        imports: List<String>,
        withoutImports: List<String>,
    ): Compilation =
        when (val compiled = compilerHost.compile(rewrite.text.toScriptSource(fileName), classpath, imports, withoutImports)) {
            is Compilation.Compiled -> Compilation.Compiled(
                compiled.snippet,
                rewrite.mapBack(compiled.diagnostics),
                compiled.classFiles,
                compiled.classpath,
            )
            is Compilation.Failed -> Compilation.Failed(rewrite.mapBack(compiled.diagnostics))
            is Compilation.Crashed -> compiled
        }
}
