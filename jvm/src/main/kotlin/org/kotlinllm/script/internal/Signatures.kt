package org.kotlinllm.script.internal

import org.jetbrains.kotlin.descriptors.ClassKind
import org.jetbrains.kotlin.fir.declarations.utils.isData
import org.jetbrains.kotlin.fir.declarations.utils.isInline
import org.jetbrains.kotlin.fir.declarations.utils.isSuspend
import org.jetbrains.kotlin.fir.symbols.FirBasedSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirCallableSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirConstructorSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirFunctionSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirTypeAliasSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirTypeParameterSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirValueParameterSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirVariableSymbol
import org.jetbrains.kotlin.fir.types.ConeKotlinType
import org.jetbrains.kotlin.fir.types.arrayElementType
import org.jetbrains.kotlin.fir.types.coneType

/**
 * Declarations of the K2 frontend rendered as a Kotlin developer writes their headers, with short type names:
 * `fun <T, R> Iterable<T>.map(transform: (T) -> R): List<R>`, `val size: Int`, `data class P`.
 */
internal object Signatures {

    fun of(symbol: FirBasedSymbol<*>): String = runCatching {
        when (symbol) {
            is FirConstructorSymbol -> "constructor" + parameters(symbol)
            is FirFunctionSymbol<*> -> function(symbol)
            is FirValueParameterSymbol -> parameter(symbol)
            is FirVariableSymbol<*> -> variable(symbol)
            is FirClassSymbol<*> -> classHeader(symbol)
            is FirTypeAliasSymbol -> "typealias ${symbol.classId.shortClassName} = ${type(symbol.resolvedExpandedTypeRef.coneType)}"
            is FirClassLikeSymbol<*> -> symbol.classId.shortClassName.asString()
            else -> symbol.toString()
        }
    }.getOrElse { "" }

    fun type(type: ConeKotlinType): String = DeclaredTypes.render(type)

    /** `times: Int = …`, as a parameter is written (its default value left out). */
    fun parameter(symbol: FirValueParameterSymbol): String = buildString {
        if (symbol.isVararg) append("vararg ")
        append(symbol.name.asString()).append(": ")
        val type = symbol.resolvedReturnType
        append(type(if (symbol.isVararg) type.arrayElementType() ?: type else type))
        if (symbol.hasDefaultValue) append(" = …")
    }

    private fun function(symbol: FirFunctionSymbol<*>): String = buildString {
        if (symbol.isSuspend) append("suspend ")
        if (symbol.isInline) append("inline ")
        append("fun ")
        typeParameters(symbol.typeParameterSymbols)?.let { append(it).append(' ') }
        receiver(symbol)?.let { append(it).append('.') }
        append(symbol.callableId?.callableName?.asString() ?: "")
        append(parameters(symbol))
        append(": ").append(type(symbol.resolvedReturnType))
    }

    private fun variable(symbol: FirVariableSymbol<*>): String = buildString {
        append(if (symbol.isVar) "var " else "val ")
        typeParameters(symbol.typeParameterSymbols)?.let { append(it).append(' ') }
        receiver(symbol)?.let { append(it).append('.') }
        append(symbol.name.asString()).append(": ").append(type(symbol.resolvedReturnType))
    }

    private fun parameters(symbol: FirFunctionSymbol<*>): String =
        symbol.valueParameterSymbols.joinToString(", ", "(", ")") { parameter(it) }

    private fun receiver(symbol: FirCallableSymbol<*>): String? = symbol.resolvedReceiverType?.let { receiver ->
        val text = type(receiver)
        if ("->" in text) "($text)" else text
    }

    private fun typeParameters(parameters: List<FirTypeParameterSymbol>): String? {
        if (parameters.isEmpty()) return null
        return parameters.joinToString(", ", "<", ">") { parameter ->
            val bounds = parameter.resolvedBounds.map { type(it.coneType) }.filter { it != "Any?" }
            if (bounds.size == 1) "${parameter.name}: ${bounds.single()}" else parameter.name.asString()
        }
    }

    private fun classHeader(symbol: FirClassSymbol<*>): String {
        val keyword = when (symbol.classKind) {
            ClassKind.INTERFACE -> "interface"
            ClassKind.OBJECT -> "object"
            ClassKind.ENUM_CLASS -> "enum class"
            ClassKind.ENUM_ENTRY -> "enum entry"
            ClassKind.ANNOTATION_CLASS -> "annotation class"
            ClassKind.CLASS -> if (symbol.isData) "data class" else "class"
        }
        val typeParameters = typeParameters(symbol.typeParameterSymbols).orEmpty()
        return SnippetNames.clean("$keyword ${symbol.classId.relativeClassName.asString()}$typeParameters")
    }
}
