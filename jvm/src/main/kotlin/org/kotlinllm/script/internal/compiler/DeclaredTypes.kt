package org.kotlinllm.script.internal.compiler

import org.jetbrains.kotlin.fir.declarations.DirectDeclarationsAccess
import org.jetbrains.kotlin.fir.declarations.FirNamedFunction
import org.jetbrains.kotlin.fir.declarations.FirProperty
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.declarations.FirTypeAlias
import org.jetbrains.kotlin.fir.declarations.utils.isReplSnippetDeclaration
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirReplSnippetSymbol

/**
 * The top-level declarations of a REPL snippet with their signatures ([Signatures]), from the snippet's FIR as the
 * K2 compiler resolved it. Used on the session's thread, after the snippet compiled.
 */
internal object DeclaredTypes {

    /**
     * The signatures of [snippet]'s top-level declarations by name, in declaration order; a name overloaded in the
     * snippet has several.
     */
    @OptIn(SymbolInternals::class, DirectDeclarationsAccess::class)
    fun signatures(snippet: FirReplSnippetSymbol): Map<String, List<String>> {
        val byName = LinkedHashMap<String, MutableList<String>>()
        for (symbol in snippet.snippetClassSymbol.declarationSymbols) {
            if (symbol.isReplSnippetDeclaration != true) continue
            val name = when (val declaration = symbol.fir) {
                is FirProperty -> declaration.name
                is FirNamedFunction -> declaration.name
                is FirRegularClass -> declaration.name
                is FirTypeAlias -> declaration.name
                else -> continue
            }
            byName.getOrPut(name.asString()) { mutableListOf() } += Signatures.of(symbol)
        }
        return byName
    }
}
