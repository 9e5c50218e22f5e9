package org.kotlinllm.script.internal.pipeline

import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.internal.compiler.source.NotebookMagics
import org.kotlinllm.script.internal.compiler.source.SnippetParser
import org.kotlinllm.script.internal.compiler.source.UseMagic
import org.kotlinllm.script.internal.magics.SessionMagics

/**
 * The first stage: parses the snippet and reads its magics. `%use` lines name libraries to load, and the other line
 * magics of JetBrains' kernel change the session's settings ([SessionMagics]); their lines are blanked for the
 * compiler, so every offset stays. A cell that is one REPL command (`:help`) gives its value here. A magic this
 * kernel does not know, or a syntax error, ends the snippet. A `%use` line in error does not hold back the snippet's
 * other libraries: they load alone ([SessionLibraries.loadAlone]). A check changes no setting.
 */
internal class MagicStage(private val parser: SnippetParser, private val libraries: SessionLibraries, private val magics: SessionMagics) {

    fun read(request: SnippetRequest): Step<ReadSnippet> {
        command(request)?.let { return Step.Done(it) }
        val fileName = request.fileName
        val original = parser.parse(fileName, request.code)
        val used = UseMagic.read(original)
        val afterUse = if (used == null) original else parser.parse(fileName, used.code)
        val reading = magics.read(NotebookMagics.lines(afterUse))
        val parsed = if (reading.blanked.isEmpty()) afterUse
        else parser.parse(fileName, NotebookMagics.blanked(afterUse.source.text, reading.blanked))
        val shown = original.source
        val magicNotes = used?.diagnostics.orEmpty() + reading.notes
        val useErrors = magicNotes.filter { it.severity == Severity.ERROR }
        val otherMagics = reading.errors
        if (useErrors.isNotEmpty() || otherMagics.isNotEmpty()) {
            val loads = request.mode == Mode.RUN && used != null && otherMagics.isEmpty()
            val loaded = if (loads && used != null) libraries.loadAlone(used, useErrors, shown) else emptyList()
            return Step.Done(SnippetRun.compilationError(fileName, shown, useErrors + otherMagics + loaded))
        }
        if (request.mode != Mode.CHECK) {
            reading.apply()
            magics.compiling(parsed.source.text, generated = request.mode == Mode.HIDDEN)
        }
        if (parsed.syntaxErrors.isNotEmpty()) return Step.Done(SnippetRun.compilationError(fileName, shown, parsed.syntaxErrors))
        return Step.Next(ReadSnippet(request, parsed, shown, used, magicNotes))
    }

    /** The run of a cell that is one REPL command this kernel has: its value (a check: [SnippetRun.UNIT]); else null. */
    private fun command(request: SnippetRequest): SnippetRun? {
        val name = NotebookMagics.commandOf(request.code) ?: return null
        if (request.mode == Mode.CHECK) return SnippetRun.UNIT.takeIf { magics.hasCommand(name) }
        return magics.command(name)?.let { SnippetRun(RunResult.Value(it)) }
    }
}
