package org.kotlinllm.script.internal.jupyterapi

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.jsonPrimitive
import org.jetbrains.kotlinx.jupyter.api.ClassAnnotationHandler
import org.jetbrains.kotlinx.jupyter.api.FieldHandler
import org.jetbrains.kotlinx.jupyter.api.Notebook
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinition
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinitionProducer
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryResource
import org.kotlinllm.script.internal.libraries.Libraries
import org.kotlinllm.script.internal.libraries.Library
import org.kotlinllm.script.internal.pipeline.HostCode
import java.io.File
import java.io.IOException
import java.util.zip.ZipFile

/**
 * The Jupyter integrations that libraries ship for JetBrains' kernel (`META-INF/kotlin-jupyter-libraries/libraries.json`
 * in their jars, naming `LibraryDefinitionProducer`s and `LibraryDefinition`s): found in the jars a cell added,
 * checked against the API this kernel ships ([linkCheck]: a library built against members it lacks loads without its
 * integration, said in one line), created with the snippets' class loader and applied ([LibraryLoading]) once each.
 */
internal class Integrations(
    private val code: HostCode,
    private val notebook: () -> Notebook,
    private val loading: () -> LibraryLoading,
    /** What of JetBrains' API the classes of the jars use and this kernel's lacks, one member per line. */
    private val linkCheck: (List<File>, ClassLoader) -> List<String>,
    private val notice: (String) -> Unit,
) {
    private val loaded = HashSet<String>()

    /** One integration class a jar names; [producer] tells a producer from a definition. */
    private class Declared(val fqn: String, val producer: Boolean, val jar: File)

    /** Loads the integrations the [jars] declare and the session has not loaded yet. */
    fun load(jars: List<File>) {
        val declared = jars.flatMap(::declared).filter { it.fqn !in loaded }
        if (declared.isEmpty()) return
        for ((jar, ofJar) in declared.groupBy { it.jar }) {
            val library = libraryName(jar)
            val missing = linkCheck(listOf(jar), code.classLoader)
            if (missing.isNotEmpty()) {
                ofJar.forEach { loaded += it.fqn }
                notice(
                    "$library's notebook integration needs ${missing.first()}, which this kernel's JetBrains API " +
                        "${KernelFacts.API_KERNEL_VERSION} lacks: loaded without its integration",
                )
                continue
            }
            for (integration in ofJar) {
                loaded += integration.fqn
                // a library's integrationTypeNameRules may turn another's integration away
                if (notebook().executionHost?.acceptsIntegrationTypeName(integration.fqn) == false) continue
                val definitions = try {
                    definitions(integration)
                } catch (e: Throwable) {
                    if (e is VirtualMachineError && e !is StackOverflowError) throw e
                    notice(Faults.describe("$library (${integration.fqn})", "creating its integration", e.cause ?: e))
                    continue
                }
                loading().apply(definitions, "$library (${integration.fqn.substringAfterLast('.')})")
            }
        }
    }

    private fun definitions(integration: Declared): List<LibraryDefinition> {
        val instance = instance(integration.fqn)
        val definitions = when (instance) {
            is LibraryDefinitionProducer -> instance.getDefinitions(notebook())
            else -> listOf(instance as LibraryDefinition)
        }
        val known = Libraries.withProducer(integration.fqn) ?: return definitions
        return definitions.map { StandIns.without(it, known) }
    }

    /** The object [fqn], or a new instance by the first constructor JetBrains' kernel would call: (Notebook, Map), (Notebook), (). */
    private fun instance(fqn: String): Any {
        val type = Class.forName(fqn, true, code.classLoader)
        type.declaredFields.firstOrNull {
            it.name == "INSTANCE" && java.lang.reflect.Modifier.isStatic(it.modifiers)
        }?.let { return it.get(null) }
        val constructors = type.constructors
        constructors.firstOrNull { it.parameterTypes.contentEquals(arrayOf(Notebook::class.java, Map::class.java)) }
            ?.let { return it.newInstance(notebook(), code.integrationOptions(fqn)) }
        constructors.firstOrNull {
            it.parameterTypes.contentEquals(arrayOf(Notebook::class.java))
        }?.let { return it.newInstance(notebook()) }
        return type.getConstructor().newInstance()
    }

    private fun declared(jar: File): List<Declared> {
        val text = try {
            ZipFile(jar).use { zip ->
                val entry = zip.getEntry(DESCRIPTOR) ?: return emptyList()
                zip.getInputStream(entry).use { it.readBytes().decodeToString() }
            }
        } catch (_: IOException) {
            return emptyList()
        }
        val json = runCatching { Json.parseToJsonElement(text) as? JsonObject }.getOrNull()
        if (json == null) {
            notice("${libraryName(jar)}: its $DESCRIPTOR is not a JSON object: its notebook integration is not loaded")
            return emptyList()
        }
        fun names(key: String) = (json[key] as? JsonArray).orEmpty().mapNotNull { element ->
            ((element as? JsonObject)?.get("fqn") as? JsonPrimitive)?.jsonPrimitive?.content
        }
        return names("producers").map { Declared(it, true, jar) } + names("definitions").map { Declared(it, false, jar) }
    }

    /** A jar's library as a person names it: `krangl-0.18.jar` → `krangl 0.18`. */
    private fun libraryName(jar: File): String {
        val base = jar.name.removeSuffix(".jar")
        val version = VERSION.find(base)
        return if (version == null) base else "${base.substring(0, version.range.first)} ${version.value.drop(1)}"
    }

    /**
     * What the engine's own parts stand in for in the integration of a library the catalogue knows: its column
     * accessor generator (converters and `@DataSchema` handler; one generator per session, and DataFrame 0.15's leaves
     * frames untyped under the K2 REPL) and the scripts its renderers need (the engine's renderer is self-contained).
     */
    private object StandIns {
        fun without(definition: LibraryDefinition, library: Library): LibraryDefinition = object : LibraryDefinition by definition {
            override val converters: List<FieldHandler> = if (library.accessors != null) emptyList() else definition.converters
            override val classAnnotations: List<ClassAnnotationHandler> =
                if (library.accessors != null) emptyList() else definition.classAnnotations
            override val resources: List<LibraryResource> = if (library.renderer != null) emptyList() else definition.resources
        }
    }

    internal companion object {
        const val DESCRIPTOR: String = "META-INF/kotlin-jupyter-libraries/libraries.json"
        private val VERSION = Regex("""-\d[\w.+-]*$""")
    }
}
