package org.kotlinllm.script

import kotlin.reflect.KType
import kotlin.reflect.typeOf

/**
 * A property provided to the snippets of a session under [name], declared with [type] and holding [value].
 * Validated by [ScriptSession], which rejects invalid ones with [IllegalArgumentException].
 */
public class ScriptProperty<out T>(
    public val name: String,
    public val type: KType,
    public val value: T,
) {
    override fun toString(): String = "ScriptProperty($name: $type)"
}

/** A property whose type is inferred from [value], including its type arguments, or given as [T]. */
public inline fun <reified T> property(name: String, value: T): ScriptProperty<T> =
    ScriptProperty(name, typeOf<T>(), value)

/** Collects the properties of `ScriptSession { "greeting" provides "Hello" }`. */
public class ScriptPropertiesBuilder @PublishedApi internal constructor() {

    @PublishedApi
    internal val properties: MutableList<ScriptProperty<*>> = mutableListOf()

    /** Provides this name with [value], typed as inferred from it. */
    public inline infix fun <reified T> String.provides(value: T) {
        properties += property(this, value)
    }

    /** Provides [name] with [value] typed as [T], e.g. `provide<String?>("name", null)` or `provide<Clock>("clock", c)`. */
    public inline fun <reified T> provide(name: String, value: T) {
        properties += property(name, value)
    }

    /** Adds an already built property. */
    public fun add(property: ScriptProperty<*>) {
        properties += property
    }
}
