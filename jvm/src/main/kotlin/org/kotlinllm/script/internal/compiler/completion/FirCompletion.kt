package org.kotlinllm.script.internal.compiler.completion

import org.jetbrains.kotlin.fir.FirElement
import org.jetbrains.kotlin.fir.declarations.DirectDeclarationsAccess
import org.jetbrains.kotlin.fir.declarations.FirReplSnippet
import org.jetbrains.kotlin.fir.expressions.FirQualifiedAccessExpression
import org.jetbrains.kotlin.fir.expressions.FirResolvedQualifier
import org.jetbrains.kotlin.fir.references.FirNamedReference
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.types.resolvedType
import org.jetbrains.kotlin.fir.visitors.FirVisitorVoid
import org.kotlinllm.script.internal.compiler.ResolvedProbe
import org.kotlinllm.script.internal.compiler.TransactionalReplHistory

/** One completion: the [text] to insert, its [kind] (`function`, `property`, `class`, …) and its [signature]. */
internal class Candidate(val text: String, val kind: String, val signature: String, val rank: Int, val deprecated: Boolean = false)

/**
 * Completion by static type, read from the K2 frontend's resolution of the cell with [MARKER] appended to the word
 * at the cursor ([CompletionProbe]): after a dot, the members and applicable extensions of the receiver's type (or
 * the static members of a class named before the dot); otherwise the names in scope there (locals, parameters,
 * members of implicit receivers, the session's declarations, imported names), named arguments directly inside a
 * call's parentheses, and keywords.
 */
@OptIn(SymbolInternals::class, DirectDeclarationsAccess::class)
internal class FirCompletion(private val history: TransactionalReplHistory) {
    /** What it read of the libraries, kept between probes. */
    private val library = LibrarySymbols()

    /** The candidates at the marker of [probe] whose names start with [prefix]. */
    fun candidates(probe: ResolvedProbe, prefix: String): List<Candidate> = listing(probe, prefix) { false }.sorted()

    /**
     * Lists the candidates at the marker of [probe] for the libraries' names and signatures it reads and keeps, and
     * stops reading once [yieldWhen] is true; whether it read them all.
     */
    fun warmUp(probe: ResolvedProbe, yieldWhen: () -> Boolean): Boolean = !listing(probe, "", yieldWhen).yielded

    private fun listing(probe: ResolvedProbe, prefix: String, yieldWhen: () -> Boolean): Listing {
        val finder = MarkerFinder()
        probe.file.accept(finder)
        val listing = Listing(probe, prefix, yieldWhen, history, library)
        val found = finder.found
        if (found == null) {
            // no expression at the marker: a type (`val x: Li`) or a declaration's name
            listing.classifiersInScope()
            return listing
        }
        val receiver = found.explicitReceiver
        when {
            receiver is FirResolvedQualifier -> listing.qualified(receiver)
            receiver != null -> listing.membersAndExtensions(receiver.resolvedType, RANK_MEMBER, publicOnly = true)
            else -> listing.inScope(finder.path, found)
        }
        return listing
    }

    /** Finds the qualified access whose name ends with the marker, and the path of elements down to it. */
    private class MarkerFinder : FirVisitorVoid() {
        val path = ArrayList<FirElement>()
        var found: FirQualifiedAccessExpression? = null

        override fun visitElement(element: FirElement) {
            if (found != null) return
            path += element
            if (element is FirQualifiedAccessExpression && isMarker(element.calleeReference as? FirNamedReference)) {
                found = element
                return
            }
            element.acceptChildren(this)
            if (element is FirReplSnippet) element.evalFunctionSymbol.fir.accept(this)
            if (found == null) path.removeAt(path.size - 1)
        }

        private fun isMarker(reference: FirNamedReference?): Boolean = reference?.name?.asString()?.endsWith(MARKER) == true
    }

    companion object {
        /** Appended to the word at the cursor, so that `xs.` parses as `xs.<marker>` and `ma` as `ma<marker>`. */
        const val MARKER = "KotlinLlmCompletionMarker"
        const val RANK_LOCAL = 0
        const val RANK_MEMBER = 1
        const val RANK_SESSION = 1
        const val RANK_IMPORTED = 3
        const val RANK_KEYWORD = 4
        const val RANK_JUPYTER_API = 5
        const val JUPYTER_API = "org.jetbrains.kotlinx.jupyter.api"
        const val MAX_IMPLICIT_RECEIVERS = 3

        /** The fields holding snippets' values (`res3`): no name a user writes. */
        val RESULT_FIELD = Regex("""res\d+""")
    }
}
