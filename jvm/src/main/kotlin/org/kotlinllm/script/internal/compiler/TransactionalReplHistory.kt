package org.kotlinllm.script.internal.compiler

import org.jetbrains.kotlin.fir.extensions.FirReplHistoryProvider
import org.jetbrains.kotlin.fir.symbols.impl.FirReplSnippetSymbol

/**
 * The REPL history of the K2 compiler, with transactions: the compiler records a snippet before it knows whether
 * it compiles, so a snippet that fails is [rollback]ed and leaves no declarations behind; one that ran is [commit]ted.
 */
// No public KT issue found: the compiler records a snippet before it knows whether it compiles (FirReplHistoryProvider).
internal class TransactionalReplHistory : FirReplHistoryProvider() {

    private val committed = LinkedHashSet<FirReplSnippetSymbol>()
    private val pending = LinkedHashSet<FirReplSnippetSymbol>()

    /** While a [CompletionProbe] resolves a text, the compiler's record of it is ignored: a probe is no snippet. */
    private var probing = false

    override fun getSnippets(): Iterable<FirReplSnippetSymbol> = committed + pending

    override fun putSnippet(symbol: FirReplSnippetSymbol) {
        if (!probing && symbol !in committed) pending += symbol
    }

    override fun isFirstSnippet(symbol: FirReplSnippetSymbol): Boolean =
        (committed.firstOrNull() ?: pending.firstOrNull()) == symbol

    override fun getSnippetCount(): Int = committed.size + pending.size

    /**
     * Keeps the pending snippet; one that declares and imports nothing ([declaresAnything] false) is forgotten
     * instead, unless it is the first (which holds the REPL's shared state). Returns whether it was kept.
     */
    fun commit(declaresAnything: Boolean = true): Boolean {
        val keep = declaresAnything || committed.isEmpty()
        if (keep) committed += pending
        pending.clear()
        return keep
    }

    /** Runs [probe] with the compiler's records of snippets ignored. */
    fun <T> probing(probe: () -> T): T {
        probing = true
        try {
            return probe()
        } finally {
            probing = false
        }
    }

    /** The snippet compiled last and not yet committed or rolled back: the one about to be evaluated. */
    fun lastPending(): FirReplSnippetSymbol? = pending.lastOrNull()

    fun rollback() {
        pending.clear()
    }
}
