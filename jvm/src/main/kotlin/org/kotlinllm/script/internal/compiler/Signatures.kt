package org.kotlinllm.script.internal.compiler

import org.jetbrains.kotlin.KtPsiSourceElement
import org.jetbrains.kotlin.KtRealSourceElementKind
import org.jetbrains.kotlin.descriptors.ClassKind
import org.jetbrains.kotlin.descriptors.Modality
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.declarations.FirValueParameter
import org.jetbrains.kotlin.fir.declarations.utils.isConst
import org.jetbrains.kotlin.fir.declarations.utils.isData
import org.jetbrains.kotlin.fir.declarations.utils.isFun
import org.jetbrains.kotlin.fir.declarations.utils.isInfix
import org.jetbrains.kotlin.fir.declarations.utils.isInline
import org.jetbrains.kotlin.fir.declarations.utils.isLateInit
import org.jetbrains.kotlin.fir.declarations.utils.isOperator
import org.jetbrains.kotlin.fir.declarations.utils.isSuspend
import org.jetbrains.kotlin.fir.declarations.utils.modality
import org.jetbrains.kotlin.fir.renderer.ConeIdRenderer
import org.jetbrains.kotlin.fir.renderer.ConeTypeRendererForReadability
import org.jetbrains.kotlin.fir.symbols.FirBasedSymbol
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirCallableSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirConstructorSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirFunctionSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirPropertySymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirTypeAliasSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirTypeParameterSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirValueParameterSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirVariableSymbol
import org.jetbrains.kotlin.fir.types.ConeKotlinType
import org.jetbrains.kotlin.fir.types.arrayElementType
import org.jetbrains.kotlin.fir.types.coneType
import org.jetbrains.kotlin.fir.types.isNullableAny
import org.jetbrains.kotlin.name.CallableId
import org.jetbrains.kotlin.name.ClassId
import org.jetbrains.kotlin.types.Variance
import org.kotlinllm.script.internal.report.SnippetNames

/**
 * Declarations of the K2 frontend written as a Kotlin developer writes their headers, with the types the compiler
 * resolved (inferred ones too, never a value's runtime class): `inline fun <T, R> Iterable<T>.map(transform: (T) -> R):
 * List<R>`, `val xs: List<Int>`, `fun greet(name: String, times: Int = 1): String` (a default value as written when
 * its source is at hand, else `…`), `fun log(message: String)` (a `Unit` result left out), `data class P`.
 *
 * Types have short class names (`List<Int>`, `Map.Entry<K, V>`, a snippet's class as declared, not `Snippet3.P`), `?`
 * when nullable, `!` for a Java type of unknown nullability (`String!`), and function types as written
 * (`(Int) -> String`, `suspend () -> Unit`, `String.() -> Int`). The one renderer of completion, inspection and `vars()`.
 */
@OptIn(SymbolInternals::class)
internal object Signatures {

    fun of(symbol: FirBasedSymbol<*>): String = runCatching {
        when (symbol) {
            is FirConstructorSymbol -> "constructor" + parameters(symbol)
            is FirFunctionSymbol<*> -> function(symbol)
            is FirValueParameterSymbol -> parameter(symbol)
            is FirVariableSymbol<*> -> variable(symbol)
            is FirClassSymbol<*> -> classHeader(symbol)
            is FirTypeAliasSymbol ->
                "typealias ${symbol.classId.shortClassName}${typeParameters(symbol.typeParameterSymbols)} = " +
                    type(symbol.resolvedExpandedTypeRef.coneType)
            is FirClassLikeSymbol<*> -> symbol.classId.shortClassName.asString()
            else -> symbol.toString()
        }
    }.getOrElse { "" }

    /** [type] as Kotlin source with short names: `List<Int>`, `String?`, `(Int) -> String`, `String!`. */
    fun type(type: ConeKotlinType): String {
        val builder = StringBuilder()
        ConeTypeRendererForReadability(builder) { ShortNames() }.render(type)
        return builder.toString()
    }

    /** `times: Int = 1`, as a parameter is written (a vararg's type is its element's). */
    fun parameter(symbol: FirValueParameterSymbol): String = buildString {
        if (symbol.isVararg) append("vararg ")
        append(symbol.name.asString()).append(": ")
        val declared = symbol.resolvedReturnType
        append(type(if (symbol.isVararg) declared.arrayElementType() ?: declared else declared))
        if (symbol.hasDefaultValue) {
            // as written only when it was (a data class's `copy` has defaults of its own making)
            val source = (symbol.fir as? FirValueParameter)?.defaultValue?.source
            val written = (source as? KtPsiSourceElement)?.takeIf { it.kind is KtRealSourceElementKind }?.psi?.text
            append(" = ").append(written?.replace(WHITESPACE, " ") ?: "…")
        }
    }

    private fun function(symbol: FirFunctionSymbol<*>): String = buildString {
        if (symbol.isSuspend) append("suspend ")
        if (symbol.isInline) append("inline ")
        if (symbol.isOperator) append("operator ")
        if (symbol.isInfix) append("infix ")
        append("fun ")
        typeParameters(symbol.typeParameterSymbols).takeIf { it.isNotEmpty() }?.let { append(it).append(' ') }
        receiver(symbol)?.let { append(it).append('.') }
        append(symbol.callableId?.callableName?.asString() ?: "")
        append(parameters(symbol))
        val result = type(symbol.resolvedReturnType)
        if (result != "Unit") append(": ").append(result)
    }

    private fun variable(symbol: FirVariableSymbol<*>): String = buildString {
        if (symbol is FirPropertySymbol) {
            if (symbol.isConst) append("const ")
            if (symbol.isLateInit) append("lateinit ")
        }
        append(if (symbol.isVar) "var " else "val ")
        typeParameters(symbol.typeParameterSymbols).takeIf { it.isNotEmpty() }?.let { append(it).append(' ') }
        receiver(symbol)?.let { append(it).append('.') }
        append(symbol.name.asString()).append(": ").append(type(symbol.resolvedReturnType))
    }

    private fun parameters(symbol: FirFunctionSymbol<*>): String =
        symbol.valueParameterSymbols.joinToString(", ", "(", ")") { parameter(it) }

    /** A receiver type, parenthesized when it is a function type: `(() -> Unit).f`; `String?.f` needs none. */
    private fun receiver(symbol: FirCallableSymbol<*>): String? = symbol.resolvedReceiverType?.let { receiver ->
        val text = type(receiver)
        if ("->" in text) "($text)" else text
    }

    private fun typeParameters(parameters: List<FirTypeParameterSymbol>): String {
        if (parameters.isEmpty()) return ""
        return parameters.joinToString(", ", "<", ">") { parameter ->
            buildString {
                if (parameter.isReified) append("reified ")
                when (parameter.variance) {
                    Variance.IN_VARIANCE -> append("in ")
                    Variance.OUT_VARIANCE -> append("out ")
                    Variance.INVARIANT -> Unit
                }
                append(parameter.name.asString())
                val bounds = parameter.resolvedBounds.map { it.coneType }.filterNot { it.isNullableAny }
                if (bounds.size == 1) append(" : ").append(type(bounds.single()))
            }
        }
    }

    private fun classHeader(symbol: FirClassSymbol<*>): String = buildString {
        val fir = symbol.fir as? FirRegularClass
        when {
            symbol.isData -> append("data ")
            fir?.status?.isInline == true -> append("value ")
            fir?.status?.isFun == true -> append("fun ")
        }
        when (symbol.modality) {
            Modality.SEALED -> append("sealed ")
            Modality.ABSTRACT -> if (symbol.classKind != ClassKind.INTERFACE) append("abstract ")
            else -> Unit
        }
        append(
            when (symbol.classKind) {
                ClassKind.INTERFACE -> "interface "
                ClassKind.OBJECT -> "object "
                ClassKind.ENUM_CLASS -> "enum class "
                ClassKind.ENUM_ENTRY -> "enum entry "
                ClassKind.ANNOTATION_CLASS -> "annotation class "
                ClassKind.CLASS -> "class "
            },
        )
        append(SnippetNames.clean(symbol.classId.relativeClassName.asString()))
        append(typeParameters(symbol.typeParameterSymbols))
    }

    private val WHITESPACE = Regex("\\s+")

    /** Class names as declared: `Map.Entry`, and a snippet's class `P` rather than `Snippet3.P`. */
    private class ShortNames : ConeIdRenderer() {
        override fun renderClassId(classId: ClassId) {
            builder.append(SnippetNames.clean(classId.relativeClassName.asString()))
        }

        override fun renderCallableId(callableId: CallableId) {
            builder.append(callableId.callableName)
        }
    }
}
