package org.kotlinllm.script.internal.compiler.completion

/** The engine's one list of Kotlin keywords: names a property may not take, and words completion offers. */
internal object KotlinKeywords {

    /** Reserved everywhere: not an identifier unless in backticks. */
    val HARD: Set<String> = setOf(
        "as", "break", "class", "continue", "do", "else", "false", "for", "fun", "if", "in", "interface", "is",
        "null", "object", "package", "return", "super", "this", "throw", "true", "try", "typealias", "typeof",
        "val", "var", "when", "while",
    )

    /** Soft and modifier keywords often typed at the start of a snippet's line. */
    val SOFT: Set<String> = setOf(
        "import", "data", "enum", "sealed", "inline", "private", "override", "open", "abstract", "suspend",
    )
}
