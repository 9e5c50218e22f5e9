package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.internal.compiler.source.NotebookMagics
import org.kotlinllm.script.internal.compiler.source.SnippetParser
import org.kotlinllm.script.internal.compiler.source.UseMagic

/**
 * The first stage: parses the snippet and reads its magics. `%use` lines name libraries to load and are blanked for
 * the compiler, so every offset stays; another magic, or a syntax error, ends the snippet here. A `%use` line in error
 * does not hold back the snippet's other libraries: they load alone ([SessionLibraries.loadAlone]).
 */
internal class MagicStage(private val parser: SnippetParser, private val libraries: SessionLibraries) {

    fun read(request: SnippetRequest): Step<ReadSnippet> {
        val fileName = request.fileName
        val original = parser.parse(fileName, request.code)
        val used = UseMagic.read(original)
        val parsed = if (used == null) original else parser.parse(fileName, used.code)
        val shown = original.source
        val magicNotes = used?.diagnostics.orEmpty()
        val useErrors = magicNotes.filter { it.severity == Severity.ERROR }
        val otherMagics = NotebookMagics.diagnostics(parsed)
        if (useErrors.isNotEmpty() || otherMagics.isNotEmpty()) {
            val loads = request.mode == Mode.RUN && used != null && otherMagics.isEmpty()
            val loaded = if (loads && used != null) libraries.loadAlone(used, useErrors, shown) else emptyList()
            return Step.Done(SnippetRun.compilationError(fileName, shown, useErrors + otherMagics + loaded))
        }
        if (parsed.syntaxErrors.isNotEmpty()) return Step.Done(SnippetRun.compilationError(fileName, shown, parsed.syntaxErrors))
        return Step.Next(ReadSnippet(request, parsed, shown, used, magicNotes))
    }
}
