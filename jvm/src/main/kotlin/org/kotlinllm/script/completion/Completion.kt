package org.kotlinllm.script.completion

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
    /** Milliseconds the completion waited for the compiler to start (it was asked right after the session's start). */
    public val waitedMillis: Long = 0,
    /** Why the matches are names rather than by type; null when [byType]. */
    public val fallback: String? = null,
)

/**
 * The declaration (and current value) of a name, or null [text] when nothing is known of it; [byType], [waitedMillis]
 * and [fallback] as in [Completion].
 */
public class Inspection(
    public val text: String?,
    public val byType: Boolean,
    public val waitedMillis: Long = 0,
    public val fallback: String? = null,
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
