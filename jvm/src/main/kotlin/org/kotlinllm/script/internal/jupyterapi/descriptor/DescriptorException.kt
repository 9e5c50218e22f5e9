package org.kotlinllm.script.internal.jupyterapi.descriptor

/**
 * A library descriptor that cannot be read or applied: its [source] (a file's path, a URL, `loadLibraryDescriptor`),
 * what is wrong ([detail]) and where, when it is a place in the text ([line] and, for text that is not JSON, [column]):
 * `lib.json: "dependencies" must be a list of strings (line 3)`.
 */
internal class DescriptorException(
    val source: String,
    val detail: String,
    val line: Int? = null,
    val column: Int? = null,
) : IllegalArgumentException("$source: $detail${place(line, column)}")

private fun place(line: Int?, column: Int?): String = when {
    line == null -> ""
    column == null -> " (line $line)"
    else -> " (line $line, column $column)"
}

/** An option given to a descriptor: `v=0.15.0` ([name] `v`), or positional, `0.15.0` ([name] null). */
internal data class DescriptorOption(val name: String?, val value: String)
