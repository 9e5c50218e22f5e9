package org.kotlinllm.script.internal.libraries

import org.kotlinllm.script.runtime.MimeBundle

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
    private const val PACKAGE = "org.jetbrains.kotlinx.dataframe"
    private const val API = "$PACKAGE.api"
    private const val DATA_FRAME = "$PACKAGE.DataFrame"
    private const val DATA_ROW = "$PACKAGE.DataRow"
    private const val FORMATTED = "$API.FormattedFrame"
    private const val CONVERSIONS = "$API.TypeConversionsKt"
    private const val FRAMES = "$API.FramesKt"
    private const val HTML = "$PACKAGE.io.HtmlKt"
    private const val HTML_DATA = "$PACKAGE.io.DataFrameHtmlData"
    private const val DISPLAY_CONFIGURATION = "$PACKAGE.io.DisplayConfiguration"

    /** The class of the element the scoped style sheet applies to. */
    const val SCOPE: String = "kotlin-llm-dataframe"

    /** The rows a table shows: DataFrame's default `rowsLimit`, for its HTML and its `toString()` alike. */
    const val ROWS: Int = 20

    override val library: String = "DataFrame"

    /** A type of the library and how a value of it becomes a DataFrame; the more specific types first. */
    private class Form(val type: String, val frame: LibraryCalls.(Any) -> Any?)

    private val forms: List<Form> = listOf(
        Form(FORMATTED) { formatted(it) },
        Form(DATA_ROW) { static(CONVERSIONS, "toDataFrame", listOf(DATA_ROW), it) },
        Form("$PACKAGE.columns.ColumnGroup") { static(CONVERSIONS, "asDataFrame", listOf("$PACKAGE.columns.ColumnGroup"), it) },
        Form(DATA_FRAME) { it },
        Form("$PACKAGE.DataColumn") { static(CONVERSIONS, "toDataFrame", listOf("$PACKAGE.columns.BaseColumn"), it) },
        Form("$API.GroupBy") { groupBy(it) },
        Form("$API.ReducedGroupBy") { groupBy(member("$API.ReducedGroupBy", it, "getGroupBy")) },
        Form("$API.Pivot") { pivot(it) },
        Form("$API.ReducedPivot") { pivot(member("$API.ReducedPivot", it, "getPivot")) },
        Form("$API.PivotGroupBy") { pivotGroupBy(it) },
        Form("$API.ReducedPivotGroupBy") { pivotGroupBy(member("$API.ReducedPivotGroupBy", it, "getPivot")) },
        Form("$API.Split") { static("$API.SplitKt", "toDataFrame", listOf("$API.Split"), it) },
    )

    /** The frame a `format` applies to, for its text (its HTML is its own); null if the library renamed what it keeps internal. */
    private fun LibraryCalls.formatted(value: Any): Any? = try {
        member(FORMATTED, value, "getDf\$core")
    } catch (_: NoSuchMethodException) {
        null
    }

    private fun LibraryCalls.groupBy(value: Any?): Any? = member(
        "$API.GroupBy",
        value.required(),
        "toDataFrame",
        listOf("java.lang.String"),
        null,
    )

    private fun LibraryCalls.pivot(value: Any?): Any? = static(FRAMES, "frames", listOf("$API.Pivot"), value).let {
        static(CONVERSIONS, "toDataFrame", listOf(DATA_ROW), it)
    }

    private fun LibraryCalls.pivotGroupBy(value: Any?): Any? = static(FRAMES, "frames", listOf("$API.PivotGroupBy"), value)

    override fun match(hierarchy: Map<String, Class<*>>): Class<*>? = forms.firstNotNullOfOrNull { hierarchy[it.type] }

    override fun render(value: Any, type: Class<*>): MimeBundle {
        val calls = LibraryCalls(type.classLoader)
        val form = forms.first { it.type == type.name }
        val frame = form.frame(calls, value)
        val html = if (form.type == FORMATTED) {
            val configuration = calls.member("$DISPLAY_CONFIGURATION\$Companion", calls.companion(DISPLAY_CONFIGURATION), "getDEFAULT")
            calls.member(FORMATTED, value, "toStandaloneHTML", listOf(DISPLAY_CONFIGURATION), configuration)
        } else {
            // the library's defaults (mask 0b111): DisplayConfiguration.DEFAULT, its cell renderer, its footer
            calls.static(
                HTML,
                "toStandaloneHTML\$default",
                listOf(
                    DATA_FRAME,
                    DISPLAY_CONFIGURATION,
                    "$PACKAGE.jupyter.CellRenderer",
                    "kotlin.jvm.functions.Function1",
                    "int",
                    "java.lang.Object",
                ),
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
        val style = calls.member(HTML_DATA, data, "getStyle").toString()
        val body = calls.member(HTML_DATA, data, "getBody").toString()
        val script = calls.member(HTML_DATA, data, "getScript").toString()
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
        val rows = calls.member(DATA_FRAME, frame, "rowsCount") as Int
        if (rows <= ROWS) return table
        val columns = calls.member(DATA_FRAME, frame, "columnsCount") as Int
        // a header line, the rows shown, and the library's own "..." left out for the line that says more
        val shown = table.lines().take(1 + ROWS).filter { it.trim() != "..." }
        return (shown + "… $rows rows × $columns column${if (columns == 1) "" else "s"}, the first $ROWS shown").joinToString("\n")
    }

    private fun Any?.required(): Any = this ?: throw IllegalStateException("the library gave null")
}
