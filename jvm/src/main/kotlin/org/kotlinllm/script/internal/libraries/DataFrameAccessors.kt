package org.kotlinllm.script.internal.libraries

import org.kotlinllm.script.internal.libraries.LibraryInternals.Lookup

/**
 * The column accessors of Kotlin DataFrame's frames and `@DataSchema` types, written by DataFrame's own code generator
 * for notebooks (`ReplCodeGenerator`, Kotlin-internal in 0.15, reached by reflection through the library's class
 * loader): `@DataSchema` marker interfaces and extension properties such as `val ColumnsContainer<_DataFrameType>.age:
 * DataColumn<Int>`, and the conversion that gives a frame its marker type (`df.cast<_DataFrameType>()`). The engine
 * compiles that code as hidden snippets. One generator per session: it remembers the markers it wrote and reuses one
 * for an identical schema.
 */
internal class DataFrameAccessors {

    /** A frame's accessors: [declarations] (empty when its schema's marker exists already) and its [marker] type. */
    class Frame(val declarations: String, val marker: String, private val converter: (String) -> String) {
        /** [expression], of type `DataFrame<*>`, as a frame of [marker]'s type. */
        fun convert(expression: String): String = converter(expression)
    }

    private var generator: Any? = null
    private var calls: LibraryCalls? = null

    /** The accessors of [frame], a DataFrame; null when the generator gives none. */
    fun frame(frame: Any): Frame? {
        val calls = calls(frameType(frame.javaClass)?.classLoader)
        val code = calls.call(Lookup.GENERATE_FRAME, generator(calls), frame, null) ?: return null
        val declarations = calls.call(Lookup.CODE_DECLARATIONS, code) as String

        // a Kotlin (String) -> String: Function1 is the host's class, which the library shares
        @Suppress("UNCHECKED_CAST")
        val converter = calls.call(Lookup.CODE_CONVERTER, code) as? Function1<String, Any?> ?: return null
        val marker = CAST.find(converter("x").toString())?.groupValues?.get(1) ?: return null
        return Frame(declarations.trim(), marker) { converter(it).toString() }
    }

    /** The accessors of [type], a `@DataSchema` class or interface of a snippet; null for another type. */
    fun schema(type: Class<*>): String? {
        val annotation = type.annotations.firstOrNull { it.annotationClass.java.name == DataFrameNames.DATA_SCHEMA } ?: return null
        val calls = calls(annotation.annotationClass.java.classLoader)
        val code = calls.call(Lookup.GENERATE_TYPE, generator(calls), type.kotlin) as? String
        return code?.trim()
    }

    /**
     * Tells the generator of the marker interfaces [markers] that a hidden snippet declared: it knows the markers it
     * wrote by their classes only (as the types of the properties it is given, which the engine does not pass), so
     * that the next frames reuse them for an identical schema, extend them for a wider one, and name new ones anew.
     */
    fun declared(markers: List<Class<*>>) {
        val generator = generator ?: return
        val calls = calls ?: return
        for (marker in markers) calls.call(Lookup.GENERATE_TYPE, generator, marker.kotlin)
    }

    /**
     * Forgets the markers [declarations] declare, which did not compile: the generator would otherwise reuse them for
     * the next frame of that schema, and that frame's conversion would name a type that does not exist. The
     * generator keeps them in a private field; false when it could not be reached ([LibraryInternals] logs why once),
     * and then the next frame of that schema has its accessors reported as not generated, its conversion failing.
     */
    fun forget(declarations: String): Boolean {
        val generator = generator ?: return true
        val names = markers(declarations)
        if (names.isEmpty()) return true
        val markers = try {
            LibraryInternals.read(Lookup.GENERATED_MARKERS, generator) as? MutableMap<*, *>
        } catch (_: LibraryInternals.Missing) {
            null
        } ?: return false
        return try {
            markers.keys.removeAll { it in names }
            true
        } catch (_: UnsupportedOperationException) {
            // a map the generator no longer changes in place
            false
        }
    }

    private fun calls(loader: ClassLoader?): LibraryCalls = calls ?: LibraryCalls(loader).also { calls = it }

    private fun generator(calls: LibraryCalls): Any =
        generator ?: calls.call(Lookup.GENERATOR_CREATE, null)
            .let { it ?: error("DataFrame's ReplCodeGenerator.create() gave null") }
            .also { generator = it }

    companion object {
        private val CAST = Regex("""\.cast<([\w.]+)>\(\)$""")

        /** The names of the marker interfaces [declarations] declares. */
        fun markers(declarations: String): Set<String> = INTERFACE.findAll(declarations).map { it.groupValues[1] }.toSet()
        private val INTERFACE = Regex("""\binterface\s+(\w+)""")

        /** What the generated code names without qualifying it. */
        val IMPORTS: List<String> = DataFrameNames.ACCESSOR_IMPORTS

        /** DataFrame's frame interface as [type] implements it, or null. */
        fun frameType(type: Class<*>): Class<*>? = LibraryCalls.hierarchy(type)[DataFrameNames.DATA_FRAME]

        fun isFrame(value: Any?): Boolean = value != null && frameType(value.javaClass) != null
    }
}
