package org.kotlinllm.script.internal.jupyterapi.linkage

import java.io.File

/**
 * The pre-flight link check of a library's notebook integration: what of JetBrains' kernel API its classes use that
 * the engine's copy of the API lacks, found before any of it runs, so that a library built on a newer API loads
 * without its integration and says why, instead of failing inside `onLoaded` with a NoSuchMethodError.
 *
 * Only the class files that name the API are visited (a scan of their bytes first: 130 of the 1900 of DataFrame's
 * core jar), and only the classes on the way from a use to the API are read as shapes; the API's own shapes are read
 * from the loader's resources once per loader ([LoaderShapes]). So pass the jars that hold the integration (those with
 * `libraries.json`), not every jar of the library's dependencies.
 */
internal object IntegrationLinkage {

    /**
     * What of the API the classes of [jars] use and [loader] (the loader the integration will link against: the
     * engine's, which holds the API) lacks, one short line each, sorted, such as `KotlinKernelHost.missingForTest()`
     * or `HtmlData` ([MemberNames]); empty when everything links.
     *
     * @throws java.io.IOException when a jar cannot be read as a zip file.
     */
    fun missing(jars: List<File>, loader: ClassLoader): List<String> = JarClasses(jars).use { classes ->
        val scan = LinkageScan(loader, classes)
        classes.usingApi().forEach(scan::check)
        scan.missing()
    }
}
