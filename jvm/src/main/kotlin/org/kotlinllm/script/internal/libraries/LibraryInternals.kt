package org.kotlinllm.script.internal.libraries

import io.github.oshai.kotlinlogging.KotlinLogging
import java.lang.reflect.Field
import java.lang.reflect.InvocationHandler
import java.lang.reflect.InvocationTargetException
import java.lang.reflect.Method
import java.lang.reflect.Proxy
import org.kotlinllm.script.internal.libraries.DataFrameNames as Df

private val logger = KotlinLogging.logger {}

/**
 * The one door into the libraries' code: the only code of the engine that reaches a library's classes and members by
 * name, for the renderers ([DataFrames], [LetsPlotFigures]) and the column accessors ([DataFrameAccessors]). The
 * libraries are snippet dependencies, never on the engine's classpath: each member is found through the class loader
 * of the session's copy of the library. Each member reached by name is a [Lookup], declared once with why it is
 * needed; some are Kotlin-internal or private and may go in any release.
 *
 * A process-wide record says whether each lookup resolved and never missed ([reached]); LibraryInternalsTest resolves
 * every lookup against the real artifacts, so that a library version that renames one fails there. In a session a
 * miss is logged once, as a warning, and thrown as [Missing]: the renderer's value shows as text with a notice, the
 * column accessors are reported as not generated; the session goes on.
 */
internal object LibraryInternals {

    /** How a [Lookup] reaches its member. */
    internal enum class Kind {
        /** The class [Lookup.owner] itself. */
        CLASS,

        /** A static method of [Lookup.owner] (a Kotlin file class, e.g. `…HtmlKt`). */
        STATIC,

        /** A method of a receiver as its public type [Lookup.owner] declares it (the receiver's class may be internal). */
        METHOD,

        /** A method of the Kotlin `object` [Lookup.owner], called on its instance. */
        OBJECT_METHOD,

        /** A method of the companion object of class [Lookup.owner], called on the companion. */
        COMPANION_METHOD,

        /** A field that class [Lookup.owner] declares, made accessible: the library keeps it private. */
        FIELD,
    }

    /**
     * A member of a library reached by name: its [library] (as a notice names it), the class [owner], the [member]
     * and its [parameters] (class names, `int`, `boolean`), how it is reached ([kind]) and [why] the engine needs it.
     */
    internal enum class Lookup(
        val library: String,
        val kind: Kind,
        val owner: String,
        val member: String,
        val parameters: List<String>,
        val why: String,
    ) {
        FORMATTED_FRAME(DATAFRAME, Kind.METHOD, Df.FORMATTED, "getDf\$core", listOf(), "the frame a `format` applies to, for its text"),
        ROW_FRAME(DATAFRAME, Kind.STATIC, CONVERSIONS, "toDataFrame", listOf(Df.DATA_ROW), "a row as a frame of one row"),
        COLUMN_GROUP_FRAME(DATAFRAME, Kind.STATIC, CONVERSIONS, "asDataFrame", listOf(Df.COLUMN_GROUP), "a column group as a frame"),
        COLUMN_FRAME(DATAFRAME, Kind.STATIC, CONVERSIONS, "toDataFrame", listOf(Df.BASE_COLUMN), "a column as a frame of one column"),
        GROUP_BY_FRAME(DATAFRAME, Kind.METHOD, Df.GROUP_BY, "toDataFrame", listOf("java.lang.String"), "a `groupBy` as a frame"),
        REDUCED_GROUP_BY(DATAFRAME, Kind.METHOD, Df.REDUCED_GROUP_BY, "getGroupBy", listOf(), "the `groupBy` a reduced one shows"),
        PIVOT_FRAMES(DATAFRAME, Kind.STATIC, FRAMES, "frames", listOf(Df.PIVOT), "a `pivot` as a row of frames"),
        REDUCED_PIVOT(DATAFRAME, Kind.METHOD, Df.REDUCED_PIVOT, "getPivot", listOf(), "the `pivot` a reduced one shows"),
        PIVOT_GROUP_BY_FRAMES(DATAFRAME, Kind.STATIC, FRAMES, "frames", listOf(Df.PIVOT_GROUP_BY), "a `pivot` of a `groupBy` as a frame"),
        REDUCED_PIVOT_GROUP_BY(DATAFRAME, Kind.METHOD, Df.REDUCED_PIVOT_GROUP_BY, "getPivot", listOf(), "what a reduced one shows"),
        SPLIT_FRAME(DATAFRAME, Kind.STATIC, "${Df.API}.SplitKt", "toDataFrame", listOf(Df.SPLIT), "a `split` as a frame"),
        DISPLAY_DEFAULT(
            DATAFRAME,
            Kind.COMPANION_METHOD,
            DISPLAY_CONFIGURATION,
            "getDEFAULT",
            listOf(),
            "the default display of a `format`",
        ),
        FORMATTED_HTML(
            DATAFRAME,
            Kind.METHOD,
            Df.FORMATTED,
            "toStandaloneHTML",
            listOf(DISPLAY_CONFIGURATION),
            "the HTML of a `format`, its colours its own",
        ),
        FRAME_HTML(
            DATAFRAME,
            Kind.STATIC,
            "${Df.IO}.HtmlKt",
            "toStandaloneHTML\$default",
            listOf(
                Df.DATA_FRAME,
                DISPLAY_CONFIGURATION,
                "${Df.PACKAGE}.jupyter.CellRenderer",
                "kotlin.jvm.functions.Function1",
                "int",
                "java.lang.Object",
            ),
            "a frame's HTML table with the library's defaults",
        ),
        HTML_STYLE(DATAFRAME, Kind.METHOD, HTML_DATA, "getStyle", listOf(), "the style sheet of a table, scoped to the output"),
        HTML_BODY(DATAFRAME, Kind.METHOD, HTML_DATA, "getBody", listOf(), "the tables of the HTML"),
        HTML_SCRIPT(DATAFRAME, Kind.METHOD, HTML_DATA, "getScript", listOf(), "the script that draws the interactive table"),
        ROWS_COUNT(DATAFRAME, Kind.METHOD, Df.DATA_FRAME, "rowsCount", listOf(), "how many rows the text table leaves out"),
        COLUMNS_COUNT(DATAFRAME, Kind.METHOD, Df.DATA_FRAME, "columnsCount", listOf(), "the size the text table's last line says"),
        GENERATOR_CREATE(DATAFRAME, Kind.COMPANION_METHOD, Df.GENERATOR, "create", listOf(), "a session's generator of column accessors"),
        GENERATE_FRAME(
            DATAFRAME,
            Kind.METHOD,
            Df.GENERATOR,
            "process",
            listOf(Df.DATA_FRAME, "kotlin.reflect.KProperty"),
            "the accessors and marker type of a frame",
        ),
        GENERATE_TYPE(
            DATAFRAME,
            Kind.METHOD,
            Df.GENERATOR,
            "process",
            listOf("kotlin.reflect.KClass"),
            "the accessors of a `@DataSchema` type, and the markers a hidden snippet declared",
        ),
        CODE_DECLARATIONS(DATAFRAME, Kind.METHOD, Df.CODE_WITH_CONVERTER, "getDeclarations", listOf(), "the accessors' code"),
        CODE_CONVERTER(DATAFRAME, Kind.METHOD, Df.CODE_WITH_CONVERTER, "getConverter", listOf(), "a frame's conversion to its marker"),
        GENERATED_MARKERS(
            DATAFRAME,
            Kind.FIELD,
            Df.GENERATOR_IMPL,
            "generatedMarkers",
            listOf(),
            "the markers the generator wrote, which forgets those that did not compile",
        ),
        FIGURE_SPEC(
            LETS_PLOT,
            Kind.STATIC,
            "$LETS_PLOT_PACKAGE.intern.ToSpecConvertersKt",
            "toSpec",
            listOf(LetsPlotFigures.FIGURE),
            "a figure's specification",
        ),
        FIGURE_SVG(
            LETS_PLOT,
            Kind.OBJECT_METHOD,
            "$LETS_PLOT_PACKAGE.core.util.PlotSvgExportCommon",
            "buildSvgImageFromRawSpecs",
            listOf("java.util.Map", "$LETS_PLOT_PACKAGE.commons.geometry.DoubleVector", RGB_ENCODER, "boolean"),
            "a figure's SVG, drawn on the JVM",
        ),
        PNG_ENCODER(LETS_PLOT, Kind.CLASS, RGB_ENCODER, "", listOf(), "what encodes raster layers, implemented as PNG data URLs"),
        ;

        /** `DataFrame's org.….Owner.member`, as a message names it. */
        override fun toString(): String = "$library's $owner${if (member.isEmpty()) "" else ".$member"}"
    }

    /** A member of a library was not found, or could not be reached: the library is not the version the engine knows. */
    class Missing(lookup: Lookup, how: String, cause: Throwable?) : RuntimeException("$lookup $how (${lookup.why})", cause)

    private class Record {
        @Volatile var resolved = false

        @Volatile var missed = false
    }

    private val records: Map<Lookup, Record> = Lookup.entries.associateWith { Record() }

    /** Each lookup by name: whether it resolved and never missed since the process started (false if never looked up). */
    fun reached(): Map<String, Boolean> = records.entries.associate { (lookup, record) ->
        lookup.name to (record.resolved && !record.missed)
    }

    /** What [lookup] names, found through [loader]: a [Class], a [Method] or a [Field]; throws [Missing]. */
    fun resolve(lookup: Lookup, loader: ClassLoader?): Any = found(lookup) {
        val owner = Class.forName(lookup.owner, true, loader)
        when (lookup.kind) {
            Kind.CLASS -> owner
            Kind.FIELD -> owner.getDeclaredField(lookup.member).apply { isAccessible = true }
            Kind.COMPANION_METHOD -> method(Class.forName("${lookup.owner}\$Companion", true, loader), lookup, loader)
            Kind.STATIC, Kind.METHOD, Kind.OBJECT_METHOD -> method(owner, lookup, loader)
        }
    }

    private fun method(owner: Class<*>, lookup: Lookup, loader: ClassLoader?): Method {
        val parameters = lookup.parameters.map { name ->
            when (name) {
                "int" -> Int::class.javaPrimitiveType
                "boolean" -> Boolean::class.javaPrimitiveType
                else -> null
            } ?: Class.forName(name, true, loader)
        }
        return owner.getMethod(lookup.member, *parameters.toTypedArray())
    }

    /**
     * Calls the method [lookup] names, found through [loader], with [arguments]: on [receiver] for a [Kind.METHOD],
     * on the object or companion for the others; the library's own exception is rethrown as it is.
     */
    fun call(lookup: Lookup, loader: ClassLoader?, receiver: Any?, vararg arguments: Any?): Any? {
        val method = resolve(lookup, loader) as Method
        val target = when (lookup.kind) {
            Kind.METHOD -> receiver ?: throw IllegalArgumentException("$lookup needs a receiver")
            Kind.OBJECT_METHOD -> found(lookup) { method.declaringClass.getField("INSTANCE").get(null) }
            Kind.COMPANION_METHOD -> found(lookup) { Class.forName(lookup.owner, true, loader).getField("Companion").get(null) }
            else -> null
        }
        return try {
            method.invoke(target, *arguments)
        } catch (e: InvocationTargetException) {
            throw e.targetException ?: e
        } catch (e: IllegalArgumentException) {
            throw missed(lookup, "does not take these arguments: $e", e)
        } catch (e: IllegalAccessException) {
            throw missed(lookup, "cannot be called: $e", e)
        }
    }

    /** The value of the field [lookup] names in [receiver], found through the receiver's class loader. */
    fun read(lookup: Lookup, receiver: Any): Any? {
        val field = resolve(lookup, receiver.javaClass.classLoader) as Field
        return found(lookup) { field.get(receiver) }
    }

    /** An implementation of the interface [lookup] names, found through [loader], whose calls [handler] answers. */
    fun implement(lookup: Lookup, loader: ClassLoader?, handler: InvocationHandler): Any {
        val type = resolve(lookup, loader) as Class<*>
        return Proxy.newProxyInstance(type.classLoader, arrayOf(type), handler)
    }

    /** [reach], a reflective step of [lookup]: a failure is a miss, recorded and thrown as [Missing]. */
    private inline fun <T> found(lookup: Lookup, reach: () -> T): T {
        val value = try {
            reach()
        } catch (e: ReflectiveOperationException) {
            throw missed(lookup, "is not found: $e", e)
        } catch (e: RuntimeException) {
            // a field the module system keeps closed, a receiver of another class
            throw missed(lookup, "cannot be reached: $e", e)
        } catch (e: LinkageError) {
            throw missed(lookup, "does not link: $e", e)
        }
        val record = records.getValue(lookup)
        if (!record.resolved) record.resolved = true
        return value
    }

    private fun missed(lookup: Lookup, how: String, cause: Throwable): Missing {
        val record = records.getValue(lookup)
        if (!record.missed) {
            record.missed = true
            logger.warn { "$lookup $how; what it serves is skipped: ${lookup.why}" }
        }
        return Missing(lookup, how, cause)
    }
}

private const val DATAFRAME = "DataFrame"
private const val LETS_PLOT = "lets-plot"
private const val CONVERSIONS = "${Df.API}.TypeConversionsKt"
private const val FRAMES = "${Df.API}.FramesKt"
private const val HTML_DATA = "${Df.IO}.DataFrameHtmlData"
private const val DISPLAY_CONFIGURATION = "${Df.IO}.DisplayConfiguration"
private const val LETS_PLOT_PACKAGE = "org.jetbrains.letsPlot"
private const val RGB_ENCODER = "$LETS_PLOT_PACKAGE.commons.encoding.RGBEncoder"
