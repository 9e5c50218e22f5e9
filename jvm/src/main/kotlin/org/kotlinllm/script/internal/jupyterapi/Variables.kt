package org.kotlinllm.script.internal.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.VariableState
import org.kotlinllm.script.internal.routing.SessionDisplay
import kotlin.reflect.KMutableProperty0
import kotlin.reflect.KParameter
import kotlin.reflect.KProperty0
import kotlin.reflect.KType
import kotlin.reflect.KTypeParameter
import kotlin.reflect.KVisibility
import kotlin.reflect.full.createType
import kotlin.reflect.full.starProjectedType

/**
 * A property a cell declared, as the `KProperty` JetBrains' converters and variable handlers take: read (and for a
 * `var` written) through the session. Its [returnType] is its value's class (the compiler's declared type is text
 * here): a converter that asks for a supertype of the value takes it.
 */
internal open class SnippetProperty(
    override val name: String,
    private val read: () -> Any?,
) : KProperty0<Any?> {
    override val returnType: KType by lazy {
        read()?.javaClass?.kotlin?.let { runCatching { it.starProjectedType }.getOrNull() } ?: Any::class.createType(nullable = true)
    }

    override fun get(): Any? = read()

    override fun invoke(): Any? = read()

    override fun getDelegate(): Any? = null

    override val getter: KProperty0.Getter<Any?> get() = throw UnsupportedOperationException("the getter of snippet property $name")

    override val annotations: List<Annotation> get() = emptyList()
    override val isAbstract: Boolean get() = false
    override val isFinal: Boolean get() = true
    override val isOpen: Boolean get() = false
    override val isSuspend: Boolean get() = false
    override val isConst: Boolean get() = false
    override val isLateinit: Boolean get() = false
    override val parameters: List<KParameter> get() = emptyList()
    override val typeParameters: List<KTypeParameter> get() = emptyList()
    override val visibility: KVisibility get() = KVisibility.PUBLIC

    override fun call(vararg args: Any?): Any? = read()

    override fun callBy(args: Map<KParameter, Any?>): Any? = read()

    override fun toString(): String = "val $name"

    override fun equals(other: Any?): Boolean = other is SnippetProperty && other.name == name

    override fun hashCode(): Int = name.hashCode()
}

/** A `var` a cell declared: a [SnippetProperty] that converters know as mutable (they redeclare it as a `var`). */
internal class MutableSnippetProperty(name: String, read: () -> Any?, private val write: (Any?) -> Unit) :
    SnippetProperty(name, read),
    KMutableProperty0<Any?> {
    override val setter: KMutableProperty0.Setter<Any?> get() = throw UnsupportedOperationException("the setter of snippet property $name")

    override fun set(value: Any?) = write(value)

    override fun toString(): String = "var $name"
}

/** A variable of the session as `notebook.variablesState` shows it. */
internal class SnippetVariable(override val property: SnippetProperty) : VariableState {
    override val scriptInstance: Any? get() = null

    override val value: Result<Any?> get() = runCatching { property.get() }

    override val stringValue: String? get() = value.getOrNull()?.let { SessionDisplay.textOf(it) }

    override fun toString(): String = "${property.name} = $stringValue"
}
