package org.kotlinllm.script.internal.libraries

/**
 * A library's style sheet confined to one output: a notebook shows every output in one page, and a library's rules
 * written for a page of its own (DataFrame's `table.dataframe th, td`, its `:root` colour variables) would restyle
 * the whole notebook. Every selector gets the output's [scope] selector in front; a `:root`
 * rule (where libraries define their variables) applies to the scope element itself. `@media`/`@supports` blocks are
 * scoped inside, other blocks (`@keyframes`, `@font-face`) kept, and `@import` dropped (an output loads nothing).
 */
internal object ScopedCss {
    private val comment = Regex("""/\*.*?\*/""", RegexOption.DOT_MATCHES_ALL)
    private val nestingAtRules = setOf("media", "supports", "container", "layer", "document")

    fun scope(css: String, scope: String): String = buildString { scopeRules(css.replace(comment, ""), scope, this) }

    private fun scopeRules(css: String, scope: String, out: StringBuilder) {
        var at = 0
        while (at < css.length) {
            val start = css.indexOfFirst(at) { !it.isWhitespace() }
            if (start < 0) return
            val open = css.indexOf('{', start)
            val semicolon = css.indexOf(';', start)
            if (css[start] == '@' && semicolon >= 0 && (open < 0 || semicolon < open)) {
                // a statement at-rule: @charset, @namespace kept; @import would fetch a style sheet
                val statement = css.substring(start, semicolon + 1)
                if (!statement.startsWith("@import", ignoreCase = true)) out.append(statement).append('\n')
                at = semicolon + 1
                continue
            }
            if (open < 0) return // a dangling selector without a block: nothing it could style
            val close = matchingBrace(css, open)
            val prelude = css.substring(start, open).trim()
            val block = css.substring(open + 1, close)
            if (prelude.startsWith("@")) {
                val name = prelude.drop(1).takeWhile { it.isLetterOrDigit() || it == '-' }.lowercase()
                out.append(prelude).append(" {\n")
                if (name in nestingAtRules) scopeRules(block, scope, out) else out.append(block)
                out.append("}\n")
            } else {
                out.append(selectors(prelude).joinToString(",\n") { scoped(it, scope) })
                out.append(" {").append(block).append("}\n")
            }
            at = close + 1
        }
    }

    private fun scoped(selector: String, scope: String): String = when {
        selector == ":root" -> scope
        selector.startsWith(":root") -> "$selector $scope"
        else -> "$scope $selector"
    }

    /** The selectors of a list, split at its top-level commas (not those in `:is(a, b)` or `[title="a,b"]`). */
    private fun selectors(list: String): List<String> {
        val parts = mutableListOf<String>()
        var depth = 0
        var quote: Char? = null
        var from = 0
        list.forEachIndexed { i, c ->
            when {
                quote != null -> if (c == quote) quote = null
                c == '"' || c == '\'' -> quote = c
                c == '(' || c == '[' -> depth++
                c == ')' || c == ']' -> depth--
                c == ',' && depth == 0 -> {
                    parts += list.substring(from, i)
                    from = i + 1
                }
            }
        }
        parts += list.substring(from)
        return parts.map { it.trim() }.filter { it.isNotEmpty() }
    }

    /** The index of the `}` closing the block opened at [open], or the end of the text when it is never closed. */
    private fun matchingBrace(css: String, open: Int): Int {
        var depth = 0
        var quote: Char? = null
        for (i in open until css.length) {
            val c = css[i]
            when {
                quote != null -> if (c == quote) quote = null
                c == '"' || c == '\'' -> quote = c
                c == '{' -> depth++
                c == '}' -> if (--depth == 0) return i
            }
        }
        return css.length
    }

    private inline fun String.indexOfFirst(from: Int, predicate: (Char) -> Boolean): Int {
        for (i in from until length) if (predicate(this[i])) return i
        return -1
    }
}
