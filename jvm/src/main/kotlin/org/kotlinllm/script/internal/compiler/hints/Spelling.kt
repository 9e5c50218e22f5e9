package org.kotlinllm.script.internal.compiler.hints

/** The names a misspelt one most likely meant, by edit distance (a swap of two neighbours counts as one edit). */
internal object Spelling {
    private const val MOST = 3
    private const val SHORT = 5

    /**
     * The [candidates] closest to [typed], best first: those at the least distance, if it is small for the name's
     * length (1 up to 4 characters, 2 up to 8, else 3); a difference of case alone is the closest. A short name
     * (up to 5 characters) must begin with the same two letters, as one edit makes many short names alike (`lost`
     * is not `List`). Ties go to the candidate sharing the longer end with [typed] (`printn`: `println` first).
     */
    fun closest(typed: String, candidates: Collection<String>): List<String> {
        val allowed = when {
            typed.length <= 4 -> 1
            typed.length <= 8 -> 2
            else -> 3
        }
        val scored = candidates.asSequence()
            .filter { it != typed && it.isNotEmpty() }
            .filter { typed.length > SHORT || it.take(2).equals(typed.take(2), ignoreCase = true) }
            .distinct()
            .map { it to score(typed, it) }
            .filter { (_, score) -> score <= allowed * 2 }
            .toList()
        val best = scored.minOfOrNull { it.second } ?: return emptyList()
        return scored.filter { it.second == best }
            .sortedByDescending { (candidate, _) -> commonSuffix(typed, candidate) }
            .map { it.first }
            .take(MOST)
    }

    /** Twice the edit distance of the lower-cased names, plus one when the case differs too. */
    private fun score(a: String, b: String): Int {
        val folded = distance(a.lowercase(), b.lowercase())
        return folded * 2 + if (folded == 0 && a != b) 1 else 0
    }

    /** The optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
    private fun distance(a: String, b: String): Int {
        val d = Array(a.length + 1) { IntArray(b.length + 1) }
        for (i in 0..a.length) d[i][0] = i
        for (j in 0..b.length) d[0][j] = j
        for (i in 1..a.length) {
            for (j in 1..b.length) {
                val cost = if (a[i - 1] == b[j - 1]) 0 else 1
                d[i][j] = minOf(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = minOf(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
        return d[a.length][b.length]
    }

    private fun commonSuffix(a: String, b: String): Int {
        var n = 0
        while (n < a.length && n < b.length && a[a.length - 1 - n] == b[b.length - 1 - n]) n++
        return n
    }
}
