package org.kotlinllm.script.diagnostics

/**
 * A snippet's source split into lines (`\n`, `\r\n` and `\r` end a line; the terminators are not part of it),
 * with conversions between offsets and 1-based line and column positions counted in UTF-16 code units.
 */
internal class SourceText(val text: String) {

    /** Offsets where each line starts. */
    private val lineStarts: IntArray = buildList {
        add(0)
        var i = 0
        while (i < text.length) {
            when (text[i]) {
                '\r' -> {
                    if (i + 1 < text.length && text[i + 1] == '\n') i++
                    add(i + 1)
                }
                '\n' -> add(i + 1)
            }
            i++
        }
    }.toIntArray()

    val lineCount: Int get() = lineStarts.size

    /** The text of [line] (1-based) without its terminator, or null past the end. */
    fun line(line: Int): String? {
        if (line < 1 || line > lineStarts.size) return null
        val start = lineStarts[line - 1]
        var end = if (line < lineStarts.size) lineStarts[line] else text.length
        if (end > start && text[end - 1] == '\n') end--
        if (end > start && text[end - 1] == '\r') end--
        return text.substring(start, end)
    }

    /** The 1-based line and column of [offset]. */
    fun position(offset: Int): Pair<Int, Int> {
        val clamped = offset.coerceIn(0, text.length)
        var index = lineStarts.binarySearch(clamped)
        if (index < 0) index = -index - 2
        return (index + 1) to (clamped - lineStarts[index] + 1)
    }

    /** The offset of the 1-based [line] and [column], clamped to the text. */
    fun offset(line: Int, column: Int): Int {
        val start = lineStarts[(line - 1).coerceIn(0, lineStarts.size - 1)]
        return (start + column - 1).coerceIn(0, text.length)
    }

    fun range(startOffset: Int, endOffset: Int): SourceRange {
        val (startLine, startColumn) = position(startOffset)
        val (endLine, endColumn) = position(endOffset)
        return SourceRange(startLine, startColumn, endLine, endColumn)
    }
}
