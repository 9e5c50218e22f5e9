package org.kotlinllm.script.internal.jupyterapi.linkage

import org.jetbrains.org.objectweb.asm.Type

/**
 * What of the API is missing, as a Kotlin reader would name it in one line: classes by their simple name (nested ones
 * dotted, `JupyterIntegration.Builder`), members as calls, `Notebook.getFoo()`, `KotlinKernelHost.display(Any, String)`,
 * a constructor as `HTML(String, Boolean)`; JVM types by their Kotlin names. A return type only where it is what
 * differs (the API has the call with another return type).
 */
internal object MemberNames {
    private val KOTLIN_NAMES = mapOf(
        "java/lang/Object" to "Any",
        "java/lang/String" to "String",
        "java/lang/CharSequence" to "CharSequence",
        "java/lang/Throwable" to "Throwable",
        "java/lang/Number" to "Number",
        "java/lang/Integer" to "Int",
        "java/lang/Long" to "Long",
        "java/lang/Boolean" to "Boolean",
        "java/lang/Double" to "Double",
        "java/util/List" to "List",
        "java/util/Map" to "Map",
        "java/util/Set" to "Set",
        "java/util/Collection" to "Collection",
        "java/lang/Iterable" to "Iterable",
    )

    fun className(internalName: String): String =
        KOTLIN_NAMES[internalName] ?: internalName.substringAfterLast('/').replace('$', '.')

    fun type(type: Type): String = when (type.sort) {
        Type.VOID -> "Unit"
        Type.BOOLEAN -> "Boolean"
        Type.CHAR -> "Char"
        Type.BYTE -> "Byte"
        Type.SHORT -> "Short"
        Type.INT -> "Int"
        Type.FLOAT -> "Float"
        Type.LONG -> "Long"
        Type.DOUBLE -> "Double"
        Type.ARRAY -> arrayType(type)
        else -> className(type.internalName)
    }

    private fun arrayType(type: Type): String {
        val component = Type.getType(type.descriptor.substring(1))
        val primitive = component.sort != Type.OBJECT && component.sort != Type.ARRAY
        return if (primitive) "${type(component)}Array" else "Array<${type(component)}>"
    }

    fun method(owner: String, name: String, descriptor: String, withReturn: Boolean): String {
        val parameters = Type.getArgumentTypes(descriptor).joinToString(", ") { type(it) }
        val call = if (name == "<init>") "${className(owner)}($parameters)" else "${className(owner)}.$name($parameters)"
        return if (withReturn) "$call: ${type(Type.getReturnType(descriptor))}" else call
    }

    fun field(owner: String, name: String): String = "${className(owner)}.$name"
}
