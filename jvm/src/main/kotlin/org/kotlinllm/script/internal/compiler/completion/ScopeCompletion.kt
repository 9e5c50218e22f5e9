@file:OptIn(SymbolInternals::class, DirectDeclarationsAccess::class)

package org.kotlinllm.script.internal.compiler.completion

import org.jetbrains.kotlin.KtPsiSourceElement
import org.jetbrains.kotlin.fir.FirElement
import org.jetbrains.kotlin.fir.declarations.DirectDeclarationsAccess
import org.jetbrains.kotlin.fir.declarations.FirFunction
import org.jetbrains.kotlin.fir.declarations.FirNamedFunction
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.declarations.FirReplSnippet
import org.jetbrains.kotlin.fir.declarations.FirVariable
import org.jetbrains.kotlin.fir.declarations.utils.isReplSnippetDeclaration
import org.jetbrains.kotlin.fir.expressions.FirArgumentList
import org.jetbrains.kotlin.fir.expressions.FirBlock
import org.jetbrains.kotlin.fir.expressions.FirCatch
import org.jetbrains.kotlin.fir.expressions.FirFunctionCall
import org.jetbrains.kotlin.fir.expressions.FirQualifiedAccessExpression
import org.jetbrains.kotlin.fir.expressions.FirWhenExpression
import org.jetbrains.kotlin.fir.resolve.defaultType
import org.jetbrains.kotlin.fir.resolve.providers.symbolProvider
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirFunctionSymbol
import org.jetbrains.kotlin.fir.types.coneType
import org.jetbrains.kotlin.name.ClassId
import org.jetbrains.kotlin.name.FqName
import org.jetbrains.kotlin.psi.KtCallElement
import org.jetbrains.kotlin.psi.KtQualifiedExpression
import org.kotlinllm.script.internal.compiler.Signatures
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.JUPYTER_API
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.MAX_IMPLICIT_RECEIVERS
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.RANK_IMPORTED
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.RANK_JUPYTER_API
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.RANK_KEYWORD
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.RANK_LOCAL
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.RANK_MEMBER
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.RANK_SESSION

// Completion without a receiver: the names in scope at the marker (named arguments, locals, parameters, implicit
// receivers, the session's declarations, imported names, keywords), or the classifiers where a type is written.

internal fun Listing.classifiersInScope() {
    for (symbol in sessionDeclarations()) if (symbol is FirClassLikeSymbol<*>) symbol(symbol, RANK_SESSION)
    if (prefix.isNotEmpty()) importedClassifiers()
}

/** Without a receiver: what the path to the marker declares, implicit receivers, the session, imports, keywords. */
internal fun Listing.inScope(path: List<FirElement>, found: FirQualifiedAccessExpression) {
    namedArguments(path, found)
    locals(path, found)
    for (symbol in sessionDeclarations()) symbol(symbol, RANK_SESSION)
    if (prefix.isNotEmpty()) {
        for (callable in topLevelCallables(extensions = false)) {
            symbol(
                callable,
                callable.callableId?.packageName?.let(::importedRank) ?: RANK_IMPORTED,
            )
        }
    }
    if (prefix.isNotEmpty()) importedClassifiers()
    for (keyword in KotlinKeywords.HARD + KotlinKeywords.SOFT) {
        if (keyword.startsWith(prefix) && keyword != prefix) add(keyword, "keyword", keyword, RANK_KEYWORD)
    }
}

/** JetBrains' kernel API, default-imported for notebooks written for that kernel, comes after everything else. */
private fun Listing.importedRank(pkg: FqName): Int = if (pkg.asString().startsWith(JUPYTER_API)) RANK_JUPYTER_API else RANK_IMPORTED

private fun Listing.importedClassifiers() {
    val provider = session.symbolProvider
    for (import in imports()) {
        if (import.isAllUnder) {
            val names = provider.symbolNamesProvider.getTopLevelClassifierNamesInPackage(import.fqName) ?: continue
            for (name in names) {
                if (!matches(name) || name.asString().endsWith("Kt")) continue
                provider.getClassLikeSymbolByClassId(ClassId(import.fqName, name))
                    ?.takeIf(::isPublic)?.let { symbol(it, importedRank(import.fqName)) }
            }
        } else if (matches(import.fqName.shortName())) {
            provider.getClassLikeSymbolByClassId(ClassId.topLevel(import.fqName))
                ?.let { symbol(it, importedRank(import.fqName.parent())) }
        }
    }
}

/** `name = ` for the parameters of the call whose argument the marker is (not inside a lambda argument). */
private fun Listing.namedArguments(path: List<FirElement>, found: FirQualifiedAccessExpression) {
    val at = path.indexOf(found)
    val arguments = path.getOrNull(at - 1) as? FirArgumentList ?: return
    val call = path.getOrNull(at - 2) as? FirFunctionCall ?: return
    if (call.argumentList !== arguments) return
    val functions = call.calleeReference.referencedSymbols()
    // the arguments already named in the call's text are not offered again
    val psi = (call.source as? KtPsiSourceElement)?.psi
    val callElement = (psi as? KtQualifiedExpression)?.selectorExpression ?: psi
    val given = (callElement as? KtCallElement)?.valueArguments.orEmpty()
        .mapNotNullTo(HashSet()) { it.getArgumentName()?.asName }
    for (function in functions.filterIsInstance<FirFunctionSymbol<*>>()) {
        for (parameter in function.valueParameterSymbols) {
            if (!matches(parameter.name) || parameter.name in given) continue
            val text = "${parameter.name.asString()} = "
            add(text, "parameter", Signatures.parameter(parameter), RANK_LOCAL)
        }
    }
}

/** Locals, parameters and implicit receivers of the declarations and blocks around the marker. */
private fun Listing.locals(path: List<FirElement>, found: FirQualifiedAccessExpression) {
    val offset = found.source?.startOffset ?: Int.MAX_VALUE
    var implicitReceivers = 0
    // counted over the whole path: the innermost receivers come first
    val receiverAllowed = { implicitReceivers++ < MAX_IMPLICIT_RECEIVERS }
    for ((index, element) in path.withIndex().reversed()) {
        when (element) {
            is FirBlock -> blockLocals(element, path.getOrNull(index + 1), offset)
            is FirFunction -> functionLocals(element, receiverAllowed)
            is FirRegularClass -> {
                val snippetClass = path.getOrNull(index - 1) is FirReplSnippet
                if (!snippetClass && receiverAllowed()) {
                    membersAndExtensions(element.symbol.defaultType(), RANK_MEMBER, publicOnly = false)
                }
            }
            is FirCatch -> if (matches(element.parameter.name)) {
                add(element.parameter.name.asString(), "variable", Signatures.of(element.parameter.symbol), RANK_LOCAL)
            }
            is FirWhenExpression -> element.subjectVariable?.let { subject ->
                if (matches(subject.name)) add(subject.name.asString(), "variable", Signatures.of(subject.symbol), RANK_LOCAL)
            }
            else -> {}
        }
    }
}

/** The variables, functions and classes of [block] declared before the marker (at [offset], inside [next]). */
private fun Listing.blockLocals(block: FirBlock, next: FirElement?, offset: Int) {
    for (statement in block.statements) {
        if (statement === next) break
        val start = statement.source?.startOffset ?: continue
        if (start >= offset) break
        if (statement is FirVariable && matches(statement.name)) {
            add(statement.name.asString(), "variable", Signatures.of(statement.symbol), RANK_LOCAL)
        }
        if (statement is FirNamedFunction && matches(statement.name)) {
            add(statement.name.asString(), "function", Signatures.of(statement.symbol), RANK_LOCAL)
        }
        if (statement is FirRegularClass && matches(statement.name)) symbol(statement.symbol, RANK_LOCAL)
    }
}

/** The parameters of a [function] around the marker, and the members of its receiver while [receiverAllowed]. */
private fun Listing.functionLocals(function: FirFunction, receiverAllowed: () -> Boolean) {
    if (function is FirNamedFunction && function.isReplSnippetDeclaration != true && function.name.isSpecial) return
    for (parameter in function.valueParameters) {
        if (matches(parameter.name)) {
            add(parameter.name.asString(), "parameter", Signatures.parameter(parameter.symbol), RANK_LOCAL)
        }
    }
    val receiver = function.receiverParameter?.typeRef?.coneType
    if (receiver != null && receiverAllowed()) {
        membersAndExtensions(receiver, RANK_MEMBER, publicOnly = true)
    }
}
