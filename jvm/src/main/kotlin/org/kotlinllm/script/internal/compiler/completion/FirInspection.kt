package org.kotlinllm.script.internal.compiler.completion

import org.jetbrains.kotlin.KtFakeSourceElementKind
import org.jetbrains.kotlin.KtPsiSourceElement
import org.jetbrains.kotlin.KtSourceElement
import org.jetbrains.kotlin.descriptors.Visibilities
import org.jetbrains.kotlin.fir.FirElement
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.declarations.FirCallableDeclaration
import org.jetbrains.kotlin.fir.declarations.FirClassLikeDeclaration
import org.jetbrains.kotlin.fir.declarations.FirDeclaration
import org.jetbrains.kotlin.fir.declarations.FirReplSnippet
import org.jetbrains.kotlin.fir.declarations.getDeprecation
import org.jetbrains.kotlin.fir.declarations.utils.isReplSnippetDeclaration
import org.jetbrains.kotlin.fir.expressions.FirQualifiedAccessExpression
import org.jetbrains.kotlin.fir.expressions.FirResolvedQualifier
import org.jetbrains.kotlin.fir.moduleData
import org.jetbrains.kotlin.fir.references.FirErrorNamedReference
import org.jetbrains.kotlin.fir.references.FirReference
import org.jetbrains.kotlin.fir.references.FirResolvedNamedReference
import org.jetbrains.kotlin.fir.resolve.diagnostics.ConeDiagnosticWithCandidates
import org.jetbrains.kotlin.fir.resolve.diagnostics.ConeDiagnosticWithSingleCandidate
import org.jetbrains.kotlin.fir.resolve.providers.symbolProvider
import org.jetbrains.kotlin.fir.resolve.toSymbol
import org.jetbrains.kotlin.fir.symbols.FirBasedSymbol
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirCallableSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirNamedFunctionSymbol
import org.jetbrains.kotlin.fir.types.ConeClassLikeType
import org.jetbrains.kotlin.fir.types.ConeKotlinType
import org.jetbrains.kotlin.fir.types.FirResolvedTypeRef
import org.jetbrains.kotlin.fir.types.coneType
import org.jetbrains.kotlin.fir.types.hasError
import org.jetbrains.kotlin.fir.types.resolvedType
import org.jetbrains.kotlin.fir.visitors.FirVisitorVoid
import org.jetbrains.kotlin.psi.KtDeclaration
import org.jetbrains.kotlin.psi.KtNamedDeclaration
import org.jetbrains.kotlin.resolve.deprecation.DeprecationLevelValue
import org.kotlinllm.script.internal.compiler.ResolvedProbe
import org.kotlinllm.script.internal.compiler.Signatures
import org.kotlinllm.script.internal.report.SnippetNames

/** What inspection found at a cursor: the declaration's symbols (overloads when the call did not resolve to one). */
internal class Inspected(
    /** The declaration's header, the static type of the expression when it differs, where it is declared, and its KDoc. */
    val text: String,
    /** The name of the session's property or object inspected, whose current value the caller may add. */
    val sessionName: String?,
)

/**
 * Inspection by the K2 frontend: the declaration that the name at the cursor refers to (a call, a property, a type,
 * or a declaration's own name), from the resolution of the whole cell as the next snippet ([CompletionProbe]).
 */
@OptIn(SymbolInternals::class)
internal object FirInspection {

    fun inspect(probe: ResolvedProbe, offset: Int, libraryDocs: LibraryDocs): Inspected? {
        val finder = Finder(offset, probe.session)
        probe.file.accept(finder)
        val found = finder.best ?: return null
        val overloads = if (found.unresolved) withOverloads(found.symbols, probe.session) else found.symbols.distinct()
        val symbols = overloads.take(MAX_OVERLOADS)
        if (symbols.isEmpty()) return null
        val first = symbols.first()
        val text = buildString {
            append(symbols.joinToString("\n") { Signatures.of(it) })
            val more = overloads.size - symbols.size
            if (more > 0) append("\n… and ").append(more).append(if (more == 1) " more overload" else " more overloads")
            val declaredType = (first as? FirCallableSymbol<*>)?.let { runCatching { Signatures.type(it.resolvedReturnType) }.getOrNull() }
            // an unfinished call's type (`listOf(1).map` without its lambda) has errors: not shown
            val type = found.type?.takeIf { !it.hasError() }?.let { runCatching { Signatures.type(it) }.getOrNull() }
            if (symbols.size == 1 && type != null && type != declaredType && type != "Unit") append("\n\ntype: ").append(type)
            where(first)?.let { append("\n\n").append(it) }
            (kdoc(first) ?: libraryDocs.of(first))?.let { append("\n\n").append(it) }
        }
        val sessionName = first.takeIf { isSessionDeclaration(it) }?.let { name(it) }
        return Inspected(text, sessionName)
    }

    /**
     * [candidates] of a call that did not resolve, with the other public top-level functions of their names and
     * packages: the compiler keeps only the candidates that got furthest, those of the call's arity so far (`println(`
     * has one argument to it, an error), so `println()` was left out.
     */
    private fun withOverloads(candidates: List<FirBasedSymbol<*>>, session: FirSession): List<FirBasedSymbol<*>> {
        val others = candidates.asSequence()
            .filterIsInstance<FirNamedFunctionSymbol>()
            .filter { it.resolvedReceiverType == null && it.callableId.classId == null && !it.callableId.packageName.isRoot }
            .map { it.callableId }
            .distinct()
            .flatMap { id -> session.symbolProvider.getTopLevelFunctionSymbols(id.packageName, id.callableName) }
            .filter { it.resolvedReceiverType == null && it.resolvedStatus.visibility == Visibilities.Public }
            .filter { runCatching { it.getDeprecation(session, null)?.deprecationLevel }.getOrNull() != DeprecationLevelValue.HIDDEN }
        return (candidates + others).distinct()
    }

    private fun name(symbol: FirBasedSymbol<*>): String? = when (symbol) {
        is FirCallableSymbol<*> -> symbol.callableId?.callableName?.asString()
        is FirClassLikeSymbol<*> -> symbol.classId.shortClassName.asString()
        else -> null
    }

    private fun isSessionDeclaration(symbol: FirBasedSymbol<*>): Boolean {
        val declaration = symbol.fir as? FirDeclaration ?: return false
        return declaration.isReplSnippetDeclaration == true && snippetFile(declaration) != PROBE_FILE
    }

    /** `snippet3.kts` for a declaration of snippet 3 (its module is `<REPL-snippet-snippet3.kts>`). */
    private fun snippetFile(declaration: FirDeclaration): String? =
        declaration.moduleData.name.asString().removeSurrounding("<", ">").substringAfter("REPL-snippet-", "").ifEmpty { null }

    /** `declared in snippet3.kts`, `member of List`, `in kotlin.collections`. */
    private fun where(symbol: FirBasedSymbol<*>): String? {
        val declaration = symbol.fir as? FirDeclaration ?: return null
        if (declaration.isReplSnippetDeclaration == true) {
            val file = snippetFile(declaration) ?: return null
            return if (file == PROBE_FILE) "declared in this cell" else "declared in $file"
        }
        return when (symbol) {
            is FirCallableSymbol<*> -> {
                val id = symbol.callableId ?: return null
                id.classId?.let { "member of ${SnippetNames.clean(it.asFqNameString())}" }
                    ?: id.packageName.takeIf { !it.isRoot }?.let { "in $it" }
            }
            is FirClassLikeSymbol<*> -> symbol.classId.packageFqName.takeIf { !it.isRoot }?.let { "in $it" }
            else -> null
        }
    }

    /** The KDoc of a declaration whose source is at hand (the cells' declarations), without the comment's stars. */
    private fun kdoc(symbol: FirBasedSymbol<*>): String? {
        val psi = ((symbol.fir as? FirDeclaration)?.source as? KtPsiSourceElement)?.psi as? KtDeclaration ?: return null
        return psi.docComment?.let { LibraryDocs.clean(it.text) }?.ifEmpty { null }
    }

    /** What a reference, type or name refers to; [unresolved]: the candidates of a call that resolved to none. */
    private class Found(val length: Int, val symbols: List<FirBasedSymbol<*>>, val type: ConeKotlinType?, val unresolved: Boolean = false)

    /** The innermost reference, type or declaration name whose source covers the offset. */
    private class Finder(private val offset: Int, private val session: FirSession) : FirVisitorVoid() {
        var best: Found? = null

        private fun consider(
            source: KtSourceElement?,
            symbols: () -> List<FirBasedSymbol<*>>,
            type: () -> ConeKotlinType?,
            unresolved: Boolean = false,
        ) {
            if (source == null ||
                (source.kind is KtFakeSourceElementKind && source.kind != KtFakeSourceElementKind.ReferenceInAtomicQualifiedAccess)
            ) return
            if (offset < source.startOffset || offset > source.endOffset) return
            val length = source.endOffset - source.startOffset
            if (best.let { it != null && it.length <= length }) return
            val found = symbols()
            if (found.isNotEmpty()) best = Found(length, found, type(), unresolved)
        }

        override fun visitElement(element: FirElement) {
            when (element) {
                is FirResolvedQualifier -> consider(element.source, { listOfNotNull(element.qualifierSymbol) }, { null })
                // a bare name's reference has a fake source (the expression's own): accepted, the smallest wins
                is FirQualifiedAccessExpression -> consider(element.calleeReference.source ?: element.source, {
                    element.calleeReference.referencedSymbols()
                }, {
                    runCatching { element.resolvedType }.getOrNull()
                }, element.calleeReference is FirErrorNamedReference)
                is FirResolvedTypeRef -> consider(element.source, {
                    listOfNotNull((element.coneType as? ConeClassLikeType)?.lookupTag?.toSymbol(session))
                }, { null })
                is FirCallableDeclaration, is FirClassLikeDeclaration -> {
                    val name = ((element.source as? KtPsiSourceElement)?.psi as? KtNamedDeclaration)?.nameIdentifier
                    if (name != null && offset >= name.textRange.startOffset && offset <= name.textRange.endOffset) {
                        val length = name.textRange.length
                        if (best.let { it == null || it.length > length }) best = Found(length, listOf(element.symbol), null)
                    }
                }
                else -> {}
            }
            element.acceptChildren(this)
            if (element is FirReplSnippet) element.evalFunctionSymbol.fir.accept(this)
        }
    }

    /** The overloads listed: all of println's 11 and print's, fewer than a screen; past them, how many more there are. */
    private const val MAX_OVERLOADS = 16

    /** The probe's own file (see [CompletionProbe]). */
    private const val PROBE_FILE = "snippet0.kts"
}

/** What a reference refers to: its symbol, or the candidates of a call that did not resolve to one (overloads). */
internal fun FirReference.referencedSymbols(): List<FirBasedSymbol<*>> = when (this) {
    is FirResolvedNamedReference -> listOf(resolvedSymbol)
    is FirErrorNamedReference -> when (val diagnostic = diagnostic) {
        is ConeDiagnosticWithSingleCandidate -> listOf(diagnostic.candidateSymbol)
        is ConeDiagnosticWithCandidates -> diagnostic.candidateSymbols.toList()
        else -> emptyList()
    }
    else -> emptyList()
}
