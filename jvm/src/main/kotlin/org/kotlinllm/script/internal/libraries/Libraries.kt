package org.kotlinllm.script.internal.libraries

/**
 * A library the kernel knows by name: what `%use` loads, what the import hints name, how its values render and
 * what follows a value of it. One entry per library in [Libraries.all].
 *
 * [coordinates] are its artifacts, version-less (the latest stable): what `%use` resolves, and what a hint names.
 * [use] is null when `%use` does not know it; [hints] are the packages and best-known names that, unresolved, get a
 * hint naming one of [coordinates]. [renderer] shows its values ([LibraryRenderers]), [accessors] makes the column
 * accessors of its values, [integration] is the JetBrains-kernel integration its artifacts ship, which this kernel
 * does not run (it says so once, and [renderer] and [accessors] stand in for what it would do).
 */
internal class Library(
    val name: String,
    val coordinates: List<String>,
    val use: Use? = null,
    val hints: List<Hint> = emptyList(),
    val renderer: LibraryRenderer? = null,
    val accessors: (() -> DataFrameAccessors)? = null,
    val integration: Integration? = null,
) {
    init {
        for (hint in hints) {
            require(hint.coordinates in coordinates) {
                "$name: the hint's ${hint.coordinates} is not among its coordinates"
            }
        }
    }

    /**
     * `%use name`: the library's artifacts and [imports], for this and the later cells. A version in parentheses
     * (`%use lets-plot(4.5.0)`, `%use kandy(v=0.8.0)`) is the one option `%use` reads; no library here takes others,
     * which are accepted and ignored.
     */
    class Use(val imports: List<String>)

    /** An artifact of the library ([coordinates]) that a hint names: its root package and its best-known names. */
    class Hint(val coordinates: String, val packageName: String, val names: List<String>)

    /** A JetBrains-kernel integration: the artifact ([coordinates]) whose `libraries.json` names its [producer]. */
    class Integration(val coordinates: String, val producer: String)
}

/** The libraries the kernel knows: `%use` lists them in this order. */
internal object Libraries {
    private val letsPlotPackages = listOf(
        "", ".geom", ".stat", ".label", ".scale", ".facet", ".pos", ".coord", ".sampling", ".themes", ".tooltips", ".annotations",
    )

    val DATAFRAME: Library = Library(
        "dataframe",
        listOf("org.jetbrains.kotlinx:dataframe"),
        use = Library.Use(DataFrameNames.USE_IMPORTS),
        hints = listOf(
            Library.Hint(
                "org.jetbrains.kotlinx:dataframe",
                DataFrameNames.PACKAGE,
                listOf(DataFrameNames.DATA_FRAME, "${DataFrameNames.API}.dataFrameOf"),
            ),
        ),
        renderer = DataFrames,
        accessors = ::DataFrameAccessors,
        integration = Library.Integration("org.jetbrains.kotlinx:dataframe-core", "${DataFrameNames.PACKAGE}.jupyter.Integration"),
    )

    val LETS_PLOT: Library = Library(
        "lets-plot",
        listOf("org.jetbrains.lets-plot:lets-plot-kotlin-jvm"),
        use = Library.Use(letsPlotPackages.map { "org.jetbrains.letsPlot$it.*" }),
        hints = listOf(
            Library.Hint(
                "org.jetbrains.lets-plot:lets-plot-kotlin-jvm",
                "org.jetbrains.letsPlot",
                listOf("org.jetbrains.letsPlot.letsPlot", "org.jetbrains.letsPlot.geom.geomPoint"),
            ),
        ),
        renderer = LetsPlotFigures,
    )

    val all: List<Library> = listOf(
        DATAFRAME,
        LETS_PLOT,
        Library(
            "kandy",
            listOf("org.jetbrains.kotlinx:kandy-lets-plot"),
            use = Library.Use(listOf("org.jetbrains.kotlinx.kandy.dsl.*", "org.jetbrains.kotlinx.kandy.letsplot.layers.*")),
        ),
        Library(
            "serialization",
            listOf("org.jetbrains.kotlinx:kotlinx-serialization-json"),
            use = Library.Use(listOf("kotlinx.serialization.*", "kotlinx.serialization.json.*")),
            hints = listOf(
                Library.Hint(
                    "org.jetbrains.kotlinx:kotlinx-serialization-json",
                    "kotlinx.serialization",
                    listOf("kotlinx.serialization.json.Json", "kotlinx.serialization.Serializable"),
                ),
            ),
        ),
        Library(
            "datetime",
            listOf("org.jetbrains.kotlinx:kotlinx-datetime"),
            use = Library.Use(listOf("kotlinx.datetime.*")),
            hints = listOf(Library.Hint("org.jetbrains.kotlinx:kotlinx-datetime", "kotlinx.datetime", listOf("kotlinx.datetime.TimeZone"))),
        ),
        Library(
            "ktor-client",
            listOf("io.ktor:ktor-client-core", "io.ktor:ktor-client-cio"),
            use = Library.Use(
                listOf(
                    "io.ktor.client.*",
                    "io.ktor.client.engine.cio.*",
                    "io.ktor.client.request.*",
                    "io.ktor.client.statement.*",
                    "io.ktor.http.*",
                ),
            ),
            hints = listOf(
                Library.Hint("io.ktor:ktor-client-cio", "io.ktor.client.engine.cio", listOf("io.ktor.client.engine.cio.CIO")),
                Library.Hint("io.ktor:ktor-client-core", "io.ktor.client", listOf("io.ktor.client.HttpClient")),
            ),
        ),
        // on the classpath and imported (kotlinx.coroutines.*) already
        Library("coroutines", emptyList(), use = Library.Use(emptyList())),
        hinted("jsoup", "org.jsoup:jsoup", "org.jsoup", "org.jsoup.Jsoup"),
        hinted("gson", "com.google.code.gson:gson", "com.google.gson", "com.google.gson.Gson", "com.google.gson.GsonBuilder"),
        Library(
            "jackson",
            listOf("com.fasterxml.jackson.module:jackson-module-kotlin", "com.fasterxml.jackson.core:jackson-databind"),
            hints = listOf(
                Library.Hint(
                    "com.fasterxml.jackson.module:jackson-module-kotlin",
                    "com.fasterxml.jackson.module.kotlin",
                    listOf("com.fasterxml.jackson.module.kotlin.jacksonObjectMapper"),
                ),
                Library.Hint(
                    "com.fasterxml.jackson.core:jackson-databind",
                    "com.fasterxml.jackson.databind",
                    listOf("com.fasterxml.jackson.databind.ObjectMapper"),
                ),
            ),
        ),
        hinted("okhttp", "com.squareup.okhttp3:okhttp", "okhttp3", "okhttp3.OkHttpClient", "okhttp3.Request"),
        hinted(
            "collections-immutable",
            "org.jetbrains.kotlinx:kotlinx-collections-immutable",
            "kotlinx.collections.immutable",
            "kotlinx.collections.immutable.persistentListOf",
        ),
        hinted("commons-csv", "org.apache.commons:commons-csv", "org.apache.commons.csv", "org.apache.commons.csv.CSVFormat"),
    )

    /** The libraries `%use` knows, by the name it knows them by. */
    val used: Map<String, Library> = all.filter { it.use != null }.associateBy { it.name }

    /** Every artifact a hint names, with its package and names. */
    val hints: List<Library.Hint> = all.flatMap { it.hints }

    /** The renderers of the libraries' values, in the order of [all]. */
    val renderers: List<LibraryRenderer> = all.mapNotNull { it.renderer }

    /** The library whose JetBrains-kernel integration is [producer] (a class name), if the catalogue knows one. */
    fun withProducer(producer: String): Library? = all.firstOrNull { it.integration?.producer == producer }

    /** A library the hints alone know: one artifact, its root package, its best-known names. */
    private fun hinted(name: String, coordinates: String, packageName: String, vararg names: String): Library =
        Library(name, listOf(coordinates), hints = listOf(Library.Hint(coordinates, packageName, names.toList())))
}
