package org.kotlinllm.script

/**
 * Completions of the text between [start] and [end] (UTF-16 offsets in the code asked about): [matches] are the
 * texts of [items], in order.
 */
public class Completion(
    public val matches: List<String>,
    public val start: Int,
    public val end: Int,
    /** Each match with its kind and signature; empty when the matches are names only. */
    public val items: List<CompletionItem> = emptyList(),
    /** Whether the matches come from the compiler's analysis of static types (else: names the session declared). */
    public val byType: Boolean = false,
)

/**
 * One completion: the [text] to insert, its [type] (`function`, `property`, `class`, `interface`, `object`, `enum`,
 * `typealias`, `variable`, `parameter`, `keyword`) and its [signature] (`fun <T, R> Iterable<T>.map(transform: (T) -> R): List<R>`).
 */
public class CompletionItem(
    public val text: String,
    public val type: String,
    public val signature: String,
)
