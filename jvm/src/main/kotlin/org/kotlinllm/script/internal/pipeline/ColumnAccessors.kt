package org.kotlinllm.script.internal.pipeline

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.internal.compiler.source.DeclaredName
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet
import org.kotlinllm.script.internal.libraries.DataFrameAccessors
import org.kotlinllm.script.internal.libraries.DataFrameNames
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.internal.session.SessionSymbols
import org.kotlinllm.script.runtime.ProvidedValues

private val logger = KotlinLogging.logger {}

/** A hidden snippet that ran to its end, as its [snippetClass], or why it did not: [failure] (`their code …`). */
internal class HiddenRun(val snippetClass: Class<*>?, val failure: String?)

/**
 * After a snippet, the column accessors of what it declared or changed, as in Kotlin notebooks: for each property
 * holding a DataFrame whose schema has no accessors yet (declared by the snippet, or a `var` it reassigned), and for
 * each `@DataSchema` type it declared, [DataFrameAccessors]' code runs as a hidden snippet, so the next snippets can
 * write `df.age` and `df.filter { age > 16 }`. A frame's hidden snippet declares the accessors and the property again
 * with its marker type (`val df = (… as DataFrame<*>).cast<_DataFrameType>()`), its value handed over through
 * [ProvidedValues], as the initializer cannot name the property it redeclares. This is what follows a value, the last
 * stage of a snippet that ran to its end.
 *
 * Hidden snippets take no snippet number: snippet 5's are `snippet5_1.kts`, `snippet5_2.kts`…; their warnings are
 * not shown and [SessionSymbols] lists only the user's declarations (a redeclared property read from its hidden
 * snippet). One that fails is rolled back like a failed snippet and leaves one line on stderr; the snippet's own
 * result stays.
 */
internal class ColumnAccessors(
    private val symbols: SessionSymbols,
    /** The next name of a hidden snippet after the cell of a file name (`snippet5_1.kts`…). */
    private val hiddenName: (String) -> String,
    /** Runs a hidden snippet through the stages of every snippet, with the imports it needs. */
    private val runHidden: (fileName: String, code: String, imports: List<String>) -> HiddenRun,
) {

    /** A property given a marker type: the [value] it was given for, the [marker], whether it is a `var`. */
    private class Typed(val value: Any, val marker: String, val mutable: Boolean)

    private val frames = DataFrameAccessors()
    private val typed = HashMap<String, Typed>()

    /** The names of the `@DataSchema` types the snippets declared. */
    private val dataSchemas = HashSet<String>()

    /** Runs the hidden snippets that [parsed], evaluated as [fileName] in class [snippetClass], calls for. */
    fun after(fileName: String, parsed: ParsedSnippet, snippetClass: Class<*>) {
        val hidden = HiddenNames(fileName, hiddenName)
        for (declaration in parsed.declarations.filter { it.kind == DeclaredName.Kind.CLASS }.distinctBy { it.name }) {
            schema(declaration.name, snippetClass, hidden)
        }
        val declared = parsed.declarations.filter { it.kind == DeclaredName.Kind.PROPERTY }.associateBy { it.name }
        // only a var that the snippet did not declare can hold another frame now
        val reassignable = typed.filterValues { it.mutable }.keys
        for (name in LinkedHashSet(declared.keys + reassignable)) frame(name, declared[name], hidden)
    }

    private fun schema(name: String, snippetClass: Class<*>, hidden: HiddenNames) {
        val type = try {
            Class.forName("${snippetClass.name}$$name", false, snippetClass.classLoader)
        } catch (_: ClassNotFoundException) {
            return
        }
        // the generator names a snippet's classes as the JVM does (`Snippet3.Person`), the next snippets by their names
        val code = generated("the @DataSchema $name") { frames.schema(type) }?.let(SnippetNames::clean) ?: return
        dataSchemas += name
        if (code.isEmpty()) return
        run(hidden.next(), code)?.let { failure -> report("the @DataSchema $name", failure) }
    }

    private fun frame(name: String, declaration: DeclaredName?, hidden: HiddenNames) {
        val value = symbols.value(name)?.getOrNull()
        if (!DataFrameAccessors.isFrame(value) || value == null) {
            typed.remove(name)
            return
        }
        val wanted = wanted(name, declaration, value) ?: return
        val frame = generated("`$name`") { frames.frame(value) } ?: return
        // a marker the generator knows by its class is named as the JVM names it (`Snippet3_1._DataFrameType`)
        val frameMarker = SnippetNames.clean(frame.marker)
        if (frame.declarations.isEmpty() && frameMarker == wanted.marker) {
            typed[name] = Typed(value, frameMarker, wanted.mutable)
            return
        }
        when (val failure = redeclare(name, value, frame, wanted.mutable, hidden)) {
            null -> typed[name] = Typed(value, frameMarker, wanted.mutable)
            else -> {
                // a marker the generator remembers but that did not compile would be named by the next frame's conversion
                frames.forget(frame.declarations)
                report("`$name`", failure)
            }
        }
    }

    /** What a frame property needs: the marker type it has now (null: none), and whether it is a `var`. */
    private class Wanted(val marker: String?, val mutable: Boolean)

    /** What the frame property [name] (declared by this snippet as [declaration], if it is) needs; null: nothing new. */
    private fun wanted(name: String, declaration: DeclaredName?, value: Any): Wanted? {
        if (declaration == null) {
            val previous = typed[name]
            return if (previous == null || previous.value === value) null else Wanted(previous.marker, previous.mutable)
        }
        // a frame typed by a @DataSchema type (`DataFrame<Person>`, `df.cast<Person>()`) keeps it: it has accessors;
        // one of another type (`listOf(1).toDataFrame()` is a `DataFrame<Int>`) is given a marker like `DataFrame<*>`
        val argument = symbols.signature(name)?.let(DataFrameNames::frameArgument)
        if (argument == null || argument in dataSchemas) {
            typed.remove(name)
            return null
        }
        return Wanted(argument.takeIf { it.startsWith(DataFrameNames.MARKER_PREFIX) }, VAR.containsMatchIn(declaration.header))
    }

    /** Declares the property [name] again as [frame]'s marker type, its [value] handed over; null when it ran, else why not. */
    private fun redeclare(name: String, value: Any, frame: DataFrameAccessors.Frame, mutable: Boolean, hidden: HiddenNames): String? {
        val id = ProvidedValues.register(mapOf(name to value))
        try {
            val handedOver = "(${ProvidedValues::class.qualifiedName}.get(${id}L, \"$name\") as ${DataFrameNames.DATA_FRAME}<*>)"
            val statement = "${if (mutable) "var" else "val"} `$name` = ${SnippetNames.clean(frame.convert(handedOver))}"
            val code = if (frame.declarations.isEmpty()) statement else "${SnippetNames.clean(frame.declarations)}\n$statement"
            return run(hidden.next(), code)
        } finally {
            ProvidedValues.unregister(id)
        }
    }

    /** What the generator gives for [subject], or null after reporting how it failed. */
    private fun <T> generated(subject: String, generate: () -> T?): T? = try {
        generate()
    } catch (e: Exception) {
        report(subject, "DataFrame's code generator threw ${SnippetNames.header(e)}")
        null
    } catch (e: LinkageError) {
        report(subject, "DataFrame's code generator is not the one of DataFrame 0.15: ${SnippetNames.header(e)}")
        null
    }

    /**
     * Compiles and evaluates [code] as the hidden snippet [fileName]; null when it ran, else why not. A redeclared
     * property is read from its class from now on.
     */
    private fun run(fileName: String, code: String): String? {
        val started = System.nanoTime()
        val run = runHidden(fileName, code, DataFrameNames.ACCESSOR_IMPORTS)
        run.snippetClass?.let { hiddenClass -> declared(code, hiddenClass) }
        logger.debug { "hidden snippet $fileName in ${(System.nanoTime() - started) / 1_000_000} ms: ${run.failure ?: "ran"}" }
        if (run.failure != null) logger.debug { "the code of $fileName:\n$code" }
        return run.failure
    }

    /** Records what the hidden snippet [code], evaluated as [hiddenClass], declared: a property again, markers. */
    private fun declared(code: String, hiddenClass: Class<*>) {
        REDECLARATION.find(code)?.let { symbols.redeclared(it.groupValues[1], hiddenClass) }
        val markers = DataFrameAccessors.markers(code).mapNotNull { name ->
            try {
                Class.forName("${hiddenClass.name}$$name", false, hiddenClass.classLoader)
            } catch (_: ClassNotFoundException) {
                null
            }
        }
        generated("the markers ${markers.joinToString { it.simpleName }}") { frames.declared(markers) }
    }

    private fun report(subject: String, why: String) {
        System.err.println("[kotlin-llm] the column accessors of $subject could not be generated: ${why.lines().joinToString(" ").trim()}")
    }

    /** The names of the hidden snippets after the snippet [fileName]: `snippet5_1.kts`, `snippet5_2.kts`… */
    private class HiddenNames(private val fileName: String, private val name: (String) -> String) {
        fun next(): String = name(fileName)
    }

    private companion object {
        val VAR = Regex("""(^|\s)var\s""")
        val REDECLARATION = Regex("""^(?:val|var) `([^`]+)` = """, RegexOption.MULTILINE)
    }
}
