package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.dependencies.DependencyResolution
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.SourceText
import org.kotlinllm.script.internal.compiler.Compilation
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet
import org.kotlinllm.script.internal.compiler.source.UseMagic

/** What a stage gave: the next stage's input, or the snippet's [SnippetRun], which ends its way through the stages. */
internal sealed interface Step<out T> {
    class Next<T>(val value: T) : Step<T>

    class Done(val run: SnippetRun) : Step<Nothing>
}

/** The value a stage passed on, or [done] with the run it ended the snippet with (`stage(x).orDone { return it }`). */
internal inline fun <T> Step<T>.orDone(done: (SnippetRun) -> Nothing): T = when (this) {
    is Step.Next -> value
    is Step.Done -> done(run)
}

/** How far a snippet goes: run, only checked (up to its compilation, leaving nothing), or run as a hidden snippet. */
internal enum class Mode {
    RUN,
    CHECK,

    /**
     * Code the engine adds after a snippet (column accessors): compiled and evaluated like a snippet, within the
     * evaluation of the snippet it follows; it loads no library, gets no hints, and declares nothing the user sees.
     */
    HIDDEN,

    /**
     * Code a library or the host runs (JetBrains' `host.execute`, a library's init code, `EXECUTE`): compiled and
     * evaluated like a snippet, after the cell that asked for it, without a number of its own; its declarations are
     * the session's, its magics work, it gets no hints.
     */
    EXECUTE,
}

/** A snippet as given: [code] with its line separators made `\n`, as kotlinc reads a source and the K2 PSI needs. */
internal class SnippetRequest(val fileName: String, text: String, val mode: Mode, val extraImports: List<String> = emptyList()) {
    val code: String = text.replace("\r\n", "\n").replace('\r', '\n')
}

/**
 * A snippet past its magics: [parsed] with its `%use` lines blank, [shown] the user's lines that diagnostics quote,
 * the libraries [used] and the notes its `%use` lines gave.
 */
internal class ReadSnippet(
    val request: SnippetRequest,
    val parsed: ParsedSnippet,
    val shown: SourceText,
    val used: UseMagic.Used?,
    val magicNotes: List<Diagnostic>,
) {
    val fileName: String get() = request.fileName
}

/** A snippet whose dependencies resolved: [resolved] (null: it declared none), notes of versions, its [imports]. */
internal class ResolvedSnippet(
    val read: ReadSnippet,
    val resolved: DependencyResolution.Resolved?,
    val versionNotes: List<Diagnostic>,
    val imports: List<String>,
)

/** A snippet that compiled: its [compilation] and its [warnings] (its `%use` notes, its dependencies', the compiler's). */
internal class CompiledSnippet(val source: ResolvedSnippet, val compilation: Compilation.Compiled, val warnings: List<Diagnostic>) {
    val read: ReadSnippet get() = source.read
}
