package org.kotlinllm.script.internal.libraries

import org.kotlinllm.script.internal.libraries.DataFrameNames.DATA_FRAME
import org.kotlinllm.script.internal.libraries.DataFrameNames.DATA_ROW
import org.kotlinllm.script.internal.libraries.DataFrameNames.FORMATTED
import org.kotlinllm.script.internal.libraries.LibraryInternals.Lookup
import org.kotlinllm.script.runtime.MimeBundle
import org.kotlinllm.script.internal.libraries.DataFrameNames as Df

/**
 * Kotlin DataFrame's values (`org.jetbrains.kotlinx.dataframe`, 0.15 and its API since) as tables: `text/html` from
 * the library's own `toStandaloneHTML()`, which holds a static table, its footer (the size, and how many rows are
 * shown) and a script that inlines its own code to draw the interactive table (no URL: it needs no network). An
 * untrusted notebook drops the script and shows the static table. Its style sheet, written for a page of its own,
 * is scoped to the output ([ScopedCss]). `text/plain` is the frame's `toString()` table, bounded to the rows the
 * HTML shows too ([ROWS], DataFrame's default `rowsLimit`) and then a line saying how many there are.
 *
 * The other values that have a DataFrame form (a row, a column, a `groupBy`, a `pivot`, …) show that form, as
 * DataFrame's own notebook integration shows them.
 */
internal object DataFrames : LibraryRenderer {
    /** The class of the element the scoped style sheet applies to. */
    const val SCOPE: String = "kotlin-llm-dataframe"

    /** The rows a table shows: DataFrame's default `rowsLimit`, for its HTML and its `toString()` alike. */
    const val ROWS: Int = 20

    override val library: String = "DataFrame"

    /** A type of the library and how a value of it becomes a DataFrame; the more specific types first. */
    private class Form(val type: String, val frame: LibraryCalls.(Any) -> Any?)

    private val forms: List<Form> = listOf(
        Form(FORMATTED) { formatted(it) },
        Form(DATA_ROW) { call(Lookup.ROW_FRAME, null, it) },
        Form(Df.COLUMN_GROUP) { call(Lookup.COLUMN_GROUP_FRAME, null, it) },
        Form(DATA_FRAME) { it },
        Form(Df.DATA_COLUMN) { call(Lookup.COLUMN_FRAME, null, it) },
        Form(Df.GROUP_BY) { groupBy(it) },
        Form(Df.REDUCED_GROUP_BY) { groupBy(call(Lookup.REDUCED_GROUP_BY, it)) },
        Form(Df.PIVOT) { pivot(it) },
        Form(Df.REDUCED_PIVOT) { pivot(call(Lookup.REDUCED_PIVOT, it)) },
        Form(Df.PIVOT_GROUP_BY) { pivotGroupBy(it) },
        Form(Df.REDUCED_PIVOT_GROUP_BY) { pivotGroupBy(call(Lookup.REDUCED_PIVOT_GROUP_BY, it)) },
        Form(Df.SPLIT) { call(Lookup.SPLIT_FRAME, null, it) },
    )

    /** The frame a `format` applies to, for its text (its HTML is its own); null if the library renamed what it keeps internal. */
    private fun LibraryCalls.formatted(value: Any): Any? = try {
        call(Lookup.FORMATTED_FRAME, value)
    } catch (_: LibraryInternals.Missing) {
        null
    }

    private fun LibraryCalls.groupBy(value: Any?): Any? = call(Lookup.GROUP_BY_FRAME, value.required(), null)

    private fun LibraryCalls.pivot(value: Any?): Any? = call(Lookup.PIVOT_FRAMES, null, value).let { call(Lookup.ROW_FRAME, null, it) }

    private fun LibraryCalls.pivotGroupBy(value: Any?): Any? = call(Lookup.PIVOT_GROUP_BY_FRAMES, null, value)

    override fun match(hierarchy: Map<String, Class<*>>): Class<*>? = forms.firstNotNullOfOrNull { hierarchy[it.type] }

    override fun render(value: Any, type: Class<*>): MimeBundle {
        val calls = LibraryCalls(type.classLoader)
        val form = forms.first { it.type == type.name }
        val frame = form.frame(calls, value)
        val html = if (form.type == FORMATTED) {
            calls.call(Lookup.FORMATTED_HTML, value, calls.call(Lookup.DISPLAY_DEFAULT, null))
        } else {
            // the library's defaults (mask 0b111): DisplayConfiguration.DEFAULT, its cell renderer, its footer
            calls.call(
                Lookup.FRAME_HTML,
                null,
                frame.required(),
                null,
                null,
                null,
                0b111,
                null,
            )
        }.required()
        val text = if (form.type == DATA_ROW || frame == null) value.toString() else text(calls, frame)
        return MimeBundle(linkedMapOf(MimeBundle.PLAIN to text, "text/html" to html(calls, html)))
    }

    /** The HTML of a `DataFrameHtmlData` as one element: its style sheet scoped to it, its tables, its script. */
    private fun html(calls: LibraryCalls, data: Any): String {
        val style = calls.call(Lookup.HTML_STYLE, data).toString()
        val body = calls.call(Lookup.HTML_BODY, data).toString()
        val script = calls.call(Lookup.HTML_SCRIPT, data).toString()
        return buildString {
            append("<div class=\"$SCOPE\">\n")
            append("<style type=\"text/css\">\n").append(ScopedCss.scope(style, ".$SCOPE")).append("</style>\n")
            append(body.trim()).append('\n')
            if (script.isNotBlank()) append("<script>\n").append(script.trim()).append("\n</script>\n")
            append("</div>")
        }
    }

    /** The frame's `toString()` table, its first [ROWS] rows, then a line saying how many rows and columns there are. */
    private fun text(calls: LibraryCalls, frame: Any): String {
        val table = frame.toString().trimEnd()
        val rows = calls.call(Lookup.ROWS_COUNT, frame) as Int
        if (rows <= ROWS) return table
        val columns = calls.call(Lookup.COLUMNS_COUNT, frame) as Int
        // a header line, the rows shown, and the library's own "..." left out for the line that says more
        val shown = table.lines().take(1 + ROWS).filter { it.trim() != "..." }
        return (shown + "… $rows rows × $columns column${if (columns == 1) "" else "s"}, the first $ROWS shown").joinToString("\n")
    }

    private fun Any?.required(): Any = this ?: throw IllegalStateException("the library gave null")
}
