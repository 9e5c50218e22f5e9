package org.kotlinllm.script.internal.jupyterapi.descriptor

import org.kotlinllm.script.runtime.Json

/**
 * The line where each value of a JSON text starts, by its path (object keys and array indices), so that an error about
 * a descriptor's field can name the line of the value that has the wrong shape. Reads only a text [Json.parse]
 * accepted, whose values are exactly the paths recorded here.
 */
internal class JsonLines(private val text: String) {
    private val lines = HashMap<List<Any>, Int>()
    private var at = 0
    private var line = 1

    init {
        value(emptyList())
    }

    /** The line of the value at [path]; 1 for a path the text has not (never asked for by the descriptor reader). */
    fun of(path: List<Any>): Int = lines[path] ?: 1

    private fun value(path: List<Any>) {
        space()
        lines[path] = line
        when (text[at]) {
            '{' -> elements('}') {
                space()
                val key = string()
                space()
                at++ // the ':'
                value(path + key)
            }
            '[' -> {
                var index = 0
                elements(']') { value(path + index++) }
            }
            '"' -> string()
            else -> while (at < text.length && text[at] !in ",}] \t\r\n") at++
        }
    }

    private fun elements(close: Char, element: () -> Unit) {
        at++ // the opening bracket
        space()
        if (text[at] == close) {
            at++
            return
        }
        while (true) {
            element()
            space()
            if (text[at++] == close) return // else the ',' before the next element
        }
    }

    /** A string at [at], decoded as [Json] decodes it (escapes and all). */
    private fun string(): String {
        val start = at++
        while (text[at] != '"') at += if (text[at] == '\\') 2 else 1
        at++
        return Json.parse(text.substring(start, at)) as String
    }

    private fun space() {
        while (at < text.length && text[at] in " \t\r\n") {
            if (text[at] == '\n') line++
            at++
        }
    }
}
