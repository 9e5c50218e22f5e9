package org.kotlinllm.script.runtime

/**
 * The little JSON the engine needs for displays (metadata, `JSON(text)`, JetBrains' results), without a JSON library
 * on the host classpath, where it could clash with a snippet's own. Values are `Map<String, Any?>` (insertion
 * ordered), `List<Any?>`, `String`, `Number`, `Boolean` and null.
 */
internal object Json {

    /** A text that is not JSON: [message] says what was expected, at [line]:[column] (1-based) of the text. */
    class SyntaxError(val detail: String, val line: Int, val column: Int) :
        IllegalArgumentException("$detail at line $line, column $column of the JSON text")

    fun parse(text: String): Any? = Reader(text).run {
        skipSpace()
        val value = readValue()
        skipSpace()
        if (at < text.length) fail("unexpected '${text[at]}' after the JSON value")
        value
    }

    fun write(value: Any?): String = StringBuilder().also { writeTo(it, value, null, 0) }.toString()

    /** Indented by two spaces, as a readable `text/plain`. */
    fun pretty(value: Any?): String = StringBuilder().also { writeTo(it, value, "  ", 0) }.toString()

    fun quote(text: String): String = StringBuilder().also { writeString(it, text) }.toString()

    private fun writeTo(out: StringBuilder, value: Any?, indent: String?, depth: Int) {
        when (value) {
            null -> out.append("null")
            is String -> writeString(out, value)
            is Boolean -> out.append(value)
            is Double, is Float -> {
                val number = (value as Number).toDouble()
                if (number.isFinite()) out.append(
                    if (number == Math.rint(number) &&
                        kotlin.math.abs(number) < 1e15
                    ) number.toLong().toString() else number.toString(),
                )
                else out.append("null")
            }
            is Number -> out.append(value.toString())
            is Map<*, *> -> writeContainer(out, "{", "}", value.entries.toList(), indent, depth) { entry ->
                writeString(out, entry.key.toString())
                out.append(if (indent == null) ":" else ": ")
                writeTo(out, entry.value, indent, depth + 1)
            }
            is Iterable<*> -> writeContainer(out, "[", "]", value.toList(), indent, depth) { writeTo(out, it, indent, depth + 1) }
            is Array<*> -> writeTo(out, value.toList(), indent, depth)
            else -> writeString(out, value.toString())
        }
    }

    private fun <T> writeContainer(
        out: StringBuilder,
        open: String,
        close: String,
        items: List<T>,
        indent: String?,
        depth: Int,
        item: (T) -> Unit,
    ) {
        out.append(open)
        if (items.isEmpty()) {
            out.append(close)
            return
        }
        items.forEachIndexed { index, element ->
            if (index > 0) out.append(',')
            if (indent != null) out.append('\n').append(indent.repeat(depth + 1))
            item(element)
        }
        if (indent != null) out.append('\n').append(indent.repeat(depth))
        out.append(close)
    }

    private fun writeString(out: StringBuilder, text: String) {
        out.append('"')
        for (c in text) {
            when (c) {
                '"' -> out.append("\\\"")
                '\\' -> out.append("\\\\")
                '\n' -> out.append("\\n")
                '\r' -> out.append("\\r")
                '\t' -> out.append("\\t")
                '\b' -> out.append("\\b")
                '\u000C' -> out.append("\\f")
                else -> if (c < ' ' || c == '\u2028' || c == '\u2029') out.append("\\u%04x".format(c.code)) else out.append(c)
            }
        }
        out.append('"')
    }

    private class Reader(val text: String) {
        var at = 0

        fun fail(detail: String): Nothing {
            val before = text.substring(0, at.coerceAtMost(text.length))
            val line = before.count { it == '\n' } + 1
            val column = at - (before.lastIndexOf('\n') + 1) + 1
            throw SyntaxError(detail, line, column)
        }

        fun skipSpace() {
            while (at < text.length && text[at] in " \t\r\n") at++
        }

        fun readValue(): Any? {
            if (at >= text.length) fail("expected a value, found the end of the text")
            return when (val c = text[at]) {
                '{' -> readObject()
                '[' -> readArray()
                '"' -> readString()
                't' -> literal("true", true)
                'f' -> literal("false", false)
                'n' -> literal("null", null)
                else -> if (c == '-' || c.isDigit()) readNumber() else fail("expected a value, found '$c'")
            }
        }

        fun literal(word: String, value: Any?): Any? {
            if (!text.startsWith(word, at)) fail("expected '$word'")
            at += word.length
            return value
        }

        /** After an opening bracket: whether [close] follows at once (consumed), the container being empty. */
        fun closesAtOnce(close: Char): Boolean {
            at++
            skipSpace()
            if (at < text.length && text[at] == close) {
                at++
                return true
            }
            return false
        }

        /** After an element: whether [close] ends the container (consumed), else a ',' announcing the next element. */
        fun closesAfterElement(close: Char): Boolean {
            skipSpace()
            if (at >= text.length) fail("expected ',' or '$close', found the end of the text")
            return when (text[at]) {
                ',' -> {
                    at++
                    false
                }
                close -> {
                    at++
                    true
                }
                else -> fail("expected ',' or '$close', found '${text[at]}'")
            }
        }

        fun readObject(): Map<String, Any?> {
            val result = LinkedHashMap<String, Any?>()
            if (closesAtOnce('}')) return result
            while (true) {
                skipSpace()
                if (at >= text.length || text[at] != '"') fail("expected a string key")
                val key = readString()
                skipSpace()
                if (at >= text.length || text[at] != ':') fail("expected ':' after a key")
                at++
                skipSpace()
                result[key] = readValue()
                if (closesAfterElement('}')) return result
            }
        }

        fun readArray(): List<Any?> {
            val result = ArrayList<Any?>()
            if (closesAtOnce(']')) return result
            while (true) {
                skipSpace()
                result += readValue()
                if (closesAfterElement(']')) return result
            }
        }

        fun readString(): String {
            val out = StringBuilder()
            at++
            while (true) {
                if (at >= text.length) fail("unterminated string")
                val c = text[at++]
                when {
                    c == '"' -> return out.toString()
                    c == '\\' -> {
                        if (at >= text.length) fail("unterminated string")
                        when (val e = text[at++]) {
                            '"', '\\', '/' -> out.append(e)
                            'n' -> out.append('\n')
                            'r' -> out.append('\r')
                            't' -> out.append('\t')
                            'b' -> out.append('\b')
                            'f' -> out.append('\u000C')
                            'u' -> {
                                val hex = text.substring(at, (at + 4).coerceAtMost(text.length))
                                val code = hex.takeIf { it.length == 4 }?.toIntOrNull(16) ?: fail("invalid \\u escape")
                                out.append(code.toChar())
                                at += 4
                            }
                            else -> {
                                at--
                                fail("invalid escape '\\$e'")
                            }
                        }
                    }
                    c < ' ' -> {
                        at--
                        fail("a control character inside a string")
                    }
                    else -> out.append(c)
                }
            }
        }

        fun readNumber(): Number {
            val start = at
            if (text[at] == '-') at++
            while (at < text.length && (text[at].isDigit() || text[at] in ".eE+-")) at++
            val token = text.substring(start, at)
            if (!NUMBER.matches(token)) {
                at = start
                fail("invalid number '$token'")
            }
            return if (token.any { it in ".eE" }) token.toDouble() else token.toLongOrNull() ?: token.toBigInteger()
        }
    }

    private val NUMBER = Regex("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")
}
