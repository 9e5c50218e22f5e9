package org.kotlinllm.script.internal.bytecode

/**
 * The evaluator returns a snippet's value of a value class type unboxed (`5.seconds` comes back as the Long of its
 * raw encoding); this boxes it again, so the value is the Duration the snippet computed.
 */
// No public KT issue found: on 2.4.21 the REPL evaluator gives a snippet's `5.seconds` as the Long 10000000000.
internal object ValueClasses {

    fun box(value: Any?, type: String?, scriptClass: Class<*>?): Any? {
        if (value == null || type == null) return value
        val loader = scriptClass?.classLoader ?: return value
        val valueClass = javaClassOf(type.removeSuffix("?").substringBefore('<'), loader) ?: return value
        if (valueClass.isInstance(value) || !valueClass.kotlin.isValue) return value
        val boxer = valueClass.declaredMethods.firstOrNull { it.name == "box-impl" && it.parameterCount == 1 } ?: return value
        return try {
            boxer.invoke(null, value)
        } catch (_: ReflectiveOperationException) {
            value
        } catch (_: IllegalArgumentException) {
            value
        }
    }

    /** `kotlin.time.Duration`, or `Snippet1.Meters` as `Snippet1$Meters`: try the dots from the right as nesting. */
    private fun javaClassOf(kotlinName: String, loader: ClassLoader): Class<*>? {
        var name = kotlinName
        while (true) {
            try {
                return Class.forName(name, false, loader)
            } catch (_: ClassNotFoundException) {
            } catch (_: LinkageError) {
                return null
            }
            val dot = name.lastIndexOf('.')
            if (dot < 0) return null
            name = name.substring(0, dot) + '$' + name.substring(dot + 1)
        }
    }
}
