package org.kotlinllm.script.internal.session

import org.kotlinllm.script.internal.compiler.completion.KotlinKeywords
import org.kotlinllm.script.runtime.ProvidedValues
import org.kotlinllm.script.runtime.ScriptScope
import java.lang.reflect.Modifier
import kotlin.reflect.KClass
import kotlin.reflect.KType
import kotlin.reflect.KTypeProjection
import kotlin.reflect.KVariance
import kotlin.reflect.full.createType
import kotlin.reflect.jvm.jvmErasure

/** A property provided to the snippets: the public `ScriptProperty`, or one a host gives by value. */
internal class ProvidedProperty(val name: String, val type: KType, val value: Any?)

/** Validates provided properties and writes the prelude snippet that declares them. */
internal object ProvidedProperties {

    private val identifier = Regex("""[\p{L}_][\p{L}\p{Nd}_]*""")

    private val scopeMembers: Set<String> by lazy {
        ScriptScope::class.members.map { it.name }.toSet() + setOf("await", "coroutineContext")
    }

    /** Keeps the values of [properties] for the prelude's getters; returns the id they read them by. */
    fun register(properties: List<ProvidedProperty>): Long = ProvidedValues.register(properties.associate { it.name to it.value })

    fun unregister(id: Long) {
        ProvidedValues.unregister(id)
    }

    /** Throws [IllegalArgumentException] naming the first invalid property and why. */
    fun validate(properties: List<ProvidedProperty>) {
        val seen = HashSet<String>()
        for (property in properties) {
            val name = property.name
            require(identifier.matches(name) && name !in KotlinKeywords.HARD && name != "_") {
                "Invalid property '$name': the name is not a Kotlin identifier"
            }
            require(seen.add(name)) { "Invalid property '$name': the name is provided more than once" }
            require(name !in scopeMembers) {
                "Invalid property '$name': the name is a member of the ScriptScope receiving the snippets"
            }
            val value = property.value
            if (value == null) {
                require(property.type.isMarkedNullable) {
                    "Invalid property '$name': the value is null, but the type ${property.type} is not nullable"
                }
            } else {
                require(property.type.jvmErasure.javaObjectType.isInstance(value)) {
                    "Invalid property '$name': the value of ${value.javaClass.name} is not of the type ${property.type}"
                }
            }
            inaccessibleClass(property.type, "the type")?.let { reason ->
                throw IllegalArgumentException("Invalid property '$name': $reason")
            }
        }
    }

    /** Whether snippets can name [type] in source (its classes public, not local or anonymous). */
    fun nameable(type: KType): Boolean = runCatching { inaccessibleClass(type, "the type") == null }.getOrDefault(false)

    /** Why snippets cannot refer to [type] (called [role] in the message), or null if they can. */
    private fun inaccessibleClass(type: KType, role: String): String? {
        val kClass = type.classifier as? KClass<*>
            ?: return "$role $type is a type parameter, which the snippets cannot refer to"
        var javaClass: Class<*>? = kClass.java
        while (javaClass != null) {
            val name = javaClass.canonicalName ?: javaClass.simpleName
            when {
                javaClass.isAnonymousClass -> return "$role ${kClass.java.name} is an anonymous class, which the snippets cannot refer to"
                javaClass.isLocalClass -> return "$role ${javaClass.simpleName} is a local class, which the snippets cannot refer to"
                !Modifier.isPublic(javaClass.modifiers) && !javaClass.isPrimitive ->
                    return "$role $name is not public, so the snippets cannot refer to it"
            }
            javaClass = javaClass.enclosingClass
        }
        if (kClass.visibility == kotlin.reflect.KVisibility.INTERNAL) {
            return "$role ${kClass.qualifiedName} is internal, so the snippets cannot refer to it"
        }
        for (argument in type.arguments) {
            val argumentType = argument.type ?: continue
            inaccessibleClass(argumentType, "the type argument")?.let { return it }
        }
        return null
    }

    /** The type as Kotlin source, fully qualified. */
    fun render(type: KType): String {
        val kClass = type.classifier as KClass<*>
        val name = checkNotNull(kClass.qualifiedName) { "validated types have names" }
        val arguments = if (type.arguments.isEmpty()) "" else type.arguments.joinToString(", ", "<", ">") { argument ->
            val argumentType = argument.type ?: return@joinToString "*"
            when (argument.variance) {
                KVariance.IN -> "in ${render(argumentType)}"
                KVariance.OUT -> "out ${render(argumentType)}"
                else -> render(argumentType)
            }
        }
        return name + arguments + if (type.isMarkedNullable) "?" else ""
    }

    /** The type of a property given as a bare value (from Java or Python): its class, generic parts as `Any?`. */
    fun typeOfValue(value: Any?): KType {
        if (value == null) return Any::class.createType(nullable = true)
        val anything = KTypeProjection.invariant(Any::class.createType(nullable = true))
        return when (value) {
            is List<*> -> List::class.createType(listOf(anything))
            is Set<*> -> Set::class.createType(listOf(anything))
            is Map<*, *> -> {
                val keys = if (value.keys.all { it is String }) KTypeProjection.invariant(String::class.createType()) else anything
                Map::class.createType(listOf(keys, anything))
            }
            else -> value.javaClass.kotlin.let { kClass -> kClass.createType(kClass.typeParameters.map { KTypeProjection.STAR }) }
        }
    }

    /** The prelude snippet: one getter property per provided property, reading [ProvidedValues]. */
    fun prelude(sessionId: Long, properties: List<ProvidedProperty>): String = properties.joinToString("\n") { property ->
        val type = render(property.type)
        "@Suppress(\"UNCHECKED_CAST\") val ${property.name}: $type get() = " +
            "${ProvidedValues::class.qualifiedName}.get(${sessionId}L, \"${property.name}\") as $type"
    }
}
