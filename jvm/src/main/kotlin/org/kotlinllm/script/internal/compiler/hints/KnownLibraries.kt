package org.kotlinllm.script.internal.compiler.hints

/**
 * Libraries agents reach for, by the packages they bring: an import of one of these packages, or a use of one of
 * their best-known names, that does not resolve gets a hint naming the `@file:DependsOn` to add. The one table of
 * them: tests/test_hints.py resolves every entry and imports each of its names.
 */
internal object KnownLibraries {

    /** A library: its coordinates (version-less: the latest stable), its root package and best-known names. */
    class Library(val coordinates: String, val packageName: String, val names: List<String>)

    val all: List<Library> = listOf(
        Library("io.ktor:ktor-client-cio", "io.ktor.client.engine.cio", listOf("io.ktor.client.engine.cio.CIO")),
        Library("io.ktor:ktor-client-core", "io.ktor.client", listOf("io.ktor.client.HttpClient")),
        Library(
            "org.jetbrains.kotlinx:kotlinx-serialization-json",
            "kotlinx.serialization",
            listOf("kotlinx.serialization.json.Json", "kotlinx.serialization.Serializable"),
        ),
        Library("org.jetbrains.kotlinx:kotlinx-datetime", "kotlinx.datetime", listOf("kotlinx.datetime.TimeZone")),
        Library(
            "org.jetbrains.kotlinx:dataframe",
            "org.jetbrains.kotlinx.dataframe",
            listOf("org.jetbrains.kotlinx.dataframe.DataFrame", "org.jetbrains.kotlinx.dataframe.api.dataFrameOf"),
        ),
        Library(
            "org.jetbrains.lets-plot:lets-plot-kotlin-jvm",
            "org.jetbrains.letsPlot",
            listOf("org.jetbrains.letsPlot.letsPlot", "org.jetbrains.letsPlot.geom.geomPoint"),
        ),
        Library("org.jsoup:jsoup", "org.jsoup", listOf("org.jsoup.Jsoup")),
        Library("com.google.code.gson:gson", "com.google.gson", listOf("com.google.gson.Gson", "com.google.gson.GsonBuilder")),
        Library(
            "com.fasterxml.jackson.module:jackson-module-kotlin",
            "com.fasterxml.jackson.module.kotlin",
            listOf("com.fasterxml.jackson.module.kotlin.jacksonObjectMapper"),
        ),
        Library(
            "com.fasterxml.jackson.core:jackson-databind",
            "com.fasterxml.jackson.databind",
            listOf("com.fasterxml.jackson.databind.ObjectMapper"),
        ),
        Library("com.squareup.okhttp3:okhttp", "okhttp3", listOf("okhttp3.OkHttpClient", "okhttp3.Request")),
        Library(
            "org.jetbrains.kotlinx:kotlinx-collections-immutable",
            "kotlinx.collections.immutable",
            listOf("kotlinx.collections.immutable.persistentListOf"),
        ),
        Library("org.apache.commons:commons-csv", "org.apache.commons.csv", listOf("org.apache.commons.csv.CSVFormat")),
    )

    /**
     * The library whose package [path] (`io.ktor.client.request`) is or lies in, when the part of it that did not
     * resolve ([unresolvedSegment], 0-based) is within that package: a library on the classpath resolves its own
     * package, so only an absent one is named. The longest package wins (ktor's CIO engine over its client).
     */
    fun forPackage(path: String, unresolvedSegment: Int): Library? {
        val segments = path.split('.')
        return all.filter { library ->
            val root = library.packageName.split('.')
            segments.size >= root.size && segments.subList(0, root.size) == root && unresolvedSegment < root.size
        }.maxByOrNull { it.packageName.length }
    }

    /** The library one of whose best-known names is [simpleName], with that name's import. */
    fun forName(simpleName: String): Pair<Library, String>? = all.firstNotNullOfOrNull { library ->
        library.names.firstOrNull { it.substringAfterLast('.') == simpleName }?.let { library to it }
    }
}
