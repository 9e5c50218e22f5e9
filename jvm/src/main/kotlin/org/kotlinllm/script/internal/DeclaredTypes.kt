package org.kotlinllm.script.internal

import org.jetbrains.kotlin.KtPsiSourceElement
import org.jetbrains.kotlin.descriptors.ClassKind
import org.jetbrains.kotlin.descriptors.Modality
import org.jetbrains.kotlin.fir.declarations.DirectDeclarationsAccess
import org.jetbrains.kotlin.fir.declarations.FirNamedFunction
import org.jetbrains.kotlin.fir.declarations.FirProperty
import org.jetbrains.kotlin.fir.declarations.FirReceiverParameter
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.declarations.FirTypeAlias
import org.jetbrains.kotlin.fir.declarations.FirTypeParameterRef
import org.jetbrains.kotlin.fir.declarations.FirValueParameter
import org.jetbrains.kotlin.fir.declarations.utils.isReplSnippetDeclaration
import org.jetbrains.kotlin.fir.renderer.ConeIdRenderer
import org.jetbrains.kotlin.fir.renderer.ConeTypeRendererForReadability
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirReplSnippetSymbol
import org.jetbrains.kotlin.fir.types.ConeKotlinType
import org.jetbrains.kotlin.fir.types.FirTypeRef
import org.jetbrains.kotlin.fir.types.arrayElementType
import org.jetbrains.kotlin.fir.types.coneTypeOrNull
import org.jetbrains.kotlin.fir.types.isNullableAny
import org.jetbrains.kotlin.name.CallableId
import org.jetbrains.kotlin.name.ClassId
import org.jetbrains.kotlin.name.render
import org.jetbrains.kotlin.types.Variance

/**
 * The top-level declarations of a REPL snippet written as a Kotlin developer writes their signatures, from the
 * snippet's FIR as the K2 compiler resolved it: the declared (static) types, inferred ones included, never the
 * runtime class of a value. `val xs: List<Int>`, `var n: Int`, `fun greet(name: String, times: Int = 1): String`,
 * `fun log(message: String)` (a `Unit` result left out), `data class P`, `object O`, `typealias Ids = List<Long>`.
 *
 * Types have short class names (`List<Int>`, `Map.Entry<K, V>`, a snippet's class as declared), `?` when nullable,
 * `!` for a Java type of unknown nullability (`String!`), and function types as written (`(Int) -> String`,
 * `suspend () -> Unit`, `String.() -> Int`). Used on the session's thread, after the snippet compiled.
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
            val (name, signature) = when (val declaration = symbol.fir) {
                is FirProperty -> declaration.name to property(declaration)
                is FirNamedFunction -> declaration.name to function(declaration)
                is FirRegularClass -> declaration.name to classLike(declaration)
                is FirTypeAlias ->
                    declaration.name to
                        "typealias ${declaration.name.render()}${typeParameters(declaration.typeParameters)} = " +
                        type(declaration.expandedTypeRef)
                else -> continue
            }
            byName.getOrPut(name.asString()) { mutableListOf() } += signature
        }
        return byName
    }

    /** [type] as Kotlin source with short names: `List<Int>`, `String?`, `(Int) -> String`, `String!`. */
    fun render(type: ConeKotlinType): String {
        val builder = StringBuilder()
        ConeTypeRendererForReadability(builder) { ShortNames() }.render(type)
        return builder.toString()
    }

    private fun type(reference: FirTypeRef): String = reference.coneTypeOrNull?.let(::render) ?: "?"

    private fun property(property: FirProperty): String = buildString {
        if (property.status.isConst) append("const ")
        if (property.status.isLateInit) append("lateinit ")
        append(if (property.isVar) "var " else "val ")
        append(typeParameters(property.typeParameters).let { if (it.isEmpty()) it else "$it " })
        append(receiver(property.receiverParameter))
        append(property.name.render()).append(": ").append(type(property.returnTypeRef))
    }

    private fun function(function: FirNamedFunction): String = buildString {
        if (function.status.isSuspend) append("suspend ")
        if (function.status.isInline) append("inline ")
        if (function.status.isOperator) append("operator ")
        if (function.status.isInfix) append("infix ")
        append("fun ")
        append(typeParameters(function.typeParameters).let { if (it.isEmpty()) it else "$it " })
        append(receiver(function.receiverParameter))
        append(function.name.render())
        function.valueParameters.joinTo(this, ", ", "(", ")") { parameter(it) }
        val result = function.returnTypeRef.coneTypeOrNull?.let(::render)
        if (result != null && result != "Unit") append(": ").append(result)
    }

    private fun parameter(parameter: FirValueParameter): String = buildString {
        val declared = parameter.returnTypeRef.coneTypeOrNull
        if (parameter.isVararg) append("vararg ")
        append(parameter.name.render()).append(": ")
        // a vararg's FIR type is its array: it is written as the element type
        val shown = if (parameter.isVararg) declared?.arrayElementType() ?: declared else declared
        append(shown?.let(::render) ?: "?")
        parameter.defaultValue?.let { default ->
            val text = (default.source as? KtPsiSourceElement)?.psi?.text?.replace(Regex("\\s+"), " ")
            append(" = ").append(text ?: "…")
        }
    }

    private fun classLike(declaration: FirRegularClass): String = buildString {
        val status = declaration.status
        when {
            status.isData -> append("data ")
            status.isInline -> append("value ")
            status.isFun -> append("fun ")
        }
        when (status.modality) {
            Modality.SEALED -> append("sealed ")
            Modality.ABSTRACT -> if (declaration.classKind != ClassKind.INTERFACE) append("abstract ")
            else -> Unit
        }
        append(
            when (declaration.classKind) {
                ClassKind.INTERFACE -> "interface "
                ClassKind.OBJECT -> "object "
                ClassKind.ENUM_CLASS -> "enum class "
                ClassKind.ANNOTATION_CLASS -> "annotation class "
                else -> "class "
            },
        )
        append(declaration.name.render()).append(typeParameters(declaration.typeParameters))
    }

    private fun receiver(receiver: FirReceiverParameter?): String {
        val type = receiver?.typeRef?.coneTypeOrNull ?: return ""
        val rendered = render(type)
        // a function type or a nullable one is parenthesized as a receiver: `(() -> Unit).f`, `String?.f` needs none
        return if (rendered.contains("->")) "($rendered)." else "$rendered."
    }

    private fun typeParameters(parameters: List<FirTypeParameterRef>): String {
        if (parameters.isEmpty()) return ""
        return parameters.map { it.symbol }.joinToString(", ", "<", ">") { parameter ->
            buildString {
                if (parameter.isReified) append("reified ")
                when (parameter.variance) {
                    Variance.IN_VARIANCE -> append("in ")
                    Variance.OUT_VARIANCE -> append("out ")
                    Variance.INVARIANT -> Unit
                }
                append(parameter.name.render())
                val bounds = parameter.resolvedBounds.map { it.coneType }.filterNot { it.isNullableAny }
                if (bounds.size == 1) append(" : ").append(render(bounds.single()))
            }
        }
    }

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
