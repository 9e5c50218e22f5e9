package org.kotlinllm.script.internal.libraries

/**
 * Kotlin DataFrame's names as the engine writes them: its packages, the classes its renderer ([DataFrames]) matches
 * and calls, its code generator's ([DataFrameAccessors]) and what that generator writes. The one place they are
 * spelled: the catalogue ([Libraries]), the guarded door ([LibraryInternals]) and the session's column accessors read
 * them from here.
 */
internal object DataFrameNames {
    const val PACKAGE: String = "org.jetbrains.kotlinx.dataframe"
    const val API: String = "$PACKAGE.api"
    const val IO: String = "$PACKAGE.io"

    /** The frame interface, `DataFrame<T>`. */
    const val DATA_FRAME: String = "$PACKAGE.DataFrame"
    const val DATA_ROW: String = "$PACKAGE.DataRow"
    const val DATA_COLUMN: String = "$PACKAGE.DataColumn"
    const val BASE_COLUMN: String = "$PACKAGE.columns.BaseColumn"
    const val COLUMN_GROUP: String = "$PACKAGE.columns.ColumnGroup"
    const val FORMATTED: String = "$API.FormattedFrame"
    const val GROUP_BY: String = "$API.GroupBy"
    const val REDUCED_GROUP_BY: String = "$API.ReducedGroupBy"
    const val PIVOT: String = "$API.Pivot"
    const val REDUCED_PIVOT: String = "$API.ReducedPivot"
    const val PIVOT_GROUP_BY: String = "$API.PivotGroupBy"
    const val REDUCED_PIVOT_GROUP_BY: String = "$API.ReducedPivotGroupBy"
    const val SPLIT: String = "$API.Split"

    /** The annotation of the types whose columns are properties (`@DataSchema interface Person`). */
    const val DATA_SCHEMA: String = "$PACKAGE.annotations.DataSchema"

    /** The code generator of notebooks, Kotlin-internal, and what it gives. */
    const val GENERATOR: String = "org.jetbrains.dataframe.impl.codeGen.ReplCodeGenerator"
    const val GENERATOR_IMPL: String = "$PACKAGE.impl.codeGen.ReplCodeGeneratorImpl"
    const val CODE_WITH_CONVERTER: String = "$PACKAGE.codeGen.CodeWithConverter"

    /** The names the generator gives the marker interfaces it writes (`_DataFrameType`, `_DataFrameType1`, …). */
    const val MARKER_PREFIX: String = "_DataFrameType"

    /** What the generated accessors name without qualifying it. */
    val ACCESSOR_IMPORTS: List<String> = listOf("$PACKAGE.*", "$API.*", "$PACKAGE.annotations.*", "$PACKAGE.columns.*")

    /** What `%use dataframe` imports, as DataFrame's own notebook integration does. */
    val USE_IMPORTS: List<String> = listOf("", ".api", ".annotations", ".io", ".columns", ".dataTypes").map { "$PACKAGE$it.*" } +
        listOf("java.io.File", "java.net.URL")

    private val FRAME_TYPE = Regex(""":\s*(?:[\w.]+\.)?(?:DataFrame<(.+)>|AnyFrame)\??\s*$""")

    /** `*` or the type argument of a signature's `DataFrame<…>` (`AnyFrame` is `DataFrame<*>`); null for another type. */
    fun frameArgument(signature: String): String? = FRAME_TYPE.find(signature)?.let { it.groupValues[1].ifEmpty { "*" } }
}
