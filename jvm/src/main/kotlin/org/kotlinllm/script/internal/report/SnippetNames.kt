package org.kotlinllm.script.internal.report

/**
 * Names of snippet code as the user declared it: the compiler wraps each snippet in a class `SnippetN`, so a class
 * `Boom` of snippet 1 is `Snippet1$Boom` to the JVM and `Snippet1.Boom` in compiler messages. The engine's hidden
 * snippets after snippet 1 are `Snippet1_1`, `Snippet1_2`….
 */
internal object SnippetNames {

    private val snippetClass = Regex("""^Snippet\d+(?:_\d+)?$""")
    private val qualifier = Regex("""(?<![\p{L}\p{Nd}_$.])Snippet\d*(?:_\d+)?[.$]""")
    private val lambdaMethod = Regex("""\${'$'}lambda(\${'$'}\d+)*$""")

    /** `$$eval`, and the names its lambdas' methods are derived from (`_$_eval`, `__eval`). */
    private val snippetBody = Regex("""[_$]+eval""")
    private val lambdaClassSuffix = Regex("""\$\d+$""")

    /** `Snippet1$Outer$Boom` → `Outer.Boom`; any other class name unchanged. */
    fun className(jvmName: String): String {
        val dollar = jvmName.indexOf('$')
        if (dollar < 0 || !snippetClass.matches(jvmName.substring(0, dollar))) return jvmName
        return jvmName.substring(dollar + 1).replace('$', '.')
    }

    /** `ExceptionClass: message` of [error], a class of a snippet named as declared. */
    fun header(error: Throwable): String {
        val name = className(error.javaClass.name)
        val message = error.localizedMessage?.let(::clean)
        return if (message == null) name else "$name: $message"
    }

    /** Strips the snippet-class qualifiers from a message: `'Snippet1.Color.BLUE'` → `'Color.BLUE'`. */
    fun clean(message: String): String = qualifier.replace(message, "")

    /**
     * The function a frame belongs to, as declared: `<snippet body>` for top-level code, `check`, `Checker.check`;
     * lambdas and anonymous classes named after the function holding them.
     */
    fun function(jvmClassName: String, methodName: String): String {
        val dollar = jvmClassName.indexOf('$')
        val outer = if (dollar < 0) jvmClassName else jvmClassName.substring(0, dollar)
        var path = if (dollar < 0) "" else jvmClassName.substring(dollar + 1)
        var method = methodName
        if (!snippetClass.matches(outer)) return "${jvmClassName.substringAfterLast('.')}.$methodName"
        // a lambda or anonymous class: `$$eval$1`, `check$1`, `Checker$check$2`
        if (lambdaClassSuffix.containsMatchIn(path)) {
            path = lambdaClassSuffix.replace(path, "")
            while (lambdaClassSuffix.containsMatchIn(path)) path = lambdaClassSuffix.replace(path, "")
            val holder = path.substringAfterLast('$', path)
            method = if (holder.isEmpty() || path.endsWith("\$\$eval")) "\$\$eval" else holder
            path = when {
                path.endsWith("\$\$eval") -> path.removeSuffix("\$\$eval").trimEnd('$')
                path.contains('$') -> path.substringBeforeLast('$')
                else -> ""
            }
        }
        method = lambdaMethod.replace(method, "").removeSuffix("\$default").substringBefore('-')
        val function = if (snippetBody.matches(method)) "<snippet body>" else method
        return if (path.isEmpty() || function == "<snippet body>") function else "${path.replace('$', '.')}.$function"
    }
}
