package org.kotlinllm.script.internal.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.KotlinKernelHost
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinition
import org.jetbrains.kotlinx.jupyter.util.AcceptanceRule
import org.kotlinllm.script.internal.jupyterapi.extensions.NotebookExtensions
import org.kotlinllm.script.internal.jupyterapi.extensions.Renderers
import org.kotlinllm.script.internal.pipeline.HostCode

/**
 * Applies JetBrains' library definitions (a cell's `USE {}`, a descriptor, a library's own integration) to the session,
 * in the order of JetBrains' kernel: its dependencies and repositories, its imports, its init code, then its
 * renderers, converters, annotation handlers, callbacks, code preprocessors and resources. A library that fails is
 * reported, named, on the cell's error stream (the session and the cell's own output stay); the others still load.
 */
internal class LibraryLoading(
    private val host: KotlinKernelHost,
    private val code: HostCode,
    private val extensions: NotebookExtensions,
    private val resources: LibraryResources,
    private val report: (String) -> Unit,
) {
    private val typeNameRules = mutableListOf<AcceptanceRule<String>>()

    /** Applies [definitions]; [origin] names them in reports (null: a cell's `USE {}` of the running cell). */
    fun apply(definitions: List<LibraryDefinition>, origin: String?) {
        for (definition in definitions) {
            val name = origin ?: origin(code.cellFileName)
            try {
                applyOne(definition, name, fromCell = origin == null)
            } catch (e: LibraryFault) {
                report(e.message.orEmpty())
            }
        }
    }

    private fun applyOne(definition: LibraryDefinition, name: String, fromCell: Boolean) {
        val needed = definition.minKernelVersion
        if (needed != null && needed > KernelFacts.version) {
            throw LibraryFault(
                "$name needs JetBrains' kernel $needed or newer; this kernel implements its API ${KernelFacts.version}: not loaded",
            )
        }
        dependencies(definition, name)
        imports(definition.imports, name)
        for (init in definition.init) step(name, "its init code (onLoaded)") { init(host) }
        extensions.register(definition, name, fromCell)
        typeNameRules += definition.integrationTypeNameRules
        resources.show(definition.resources, name)
    }

    private fun dependencies(definition: LibraryDefinition, name: String) {
        val lines = definition.repositories.map { "@file:Repository(\"${it.path}\")" } +
            definition.dependencies.map { "@file:DependsOn(\"$it\")" }
        if (lines.isEmpty()) return
        step(name, "its dependencies") { host.execute(lines.joinToString("\n")) }
    }

    /** Adds the [imports] that resolve; one that does not is reported (as default import it would break every cell). */
    private fun imports(imports: List<String>, name: String) {
        if (imports.isEmpty()) return
        val all = imports.map { it.removePrefix("import ").trim() }
        val resolving = if (resolves(all)) all else all.filter { resolves(listOf(it)) }
        val broken = all - resolving.toSet()
        if (broken.isNotEmpty()) report("$name: ${broken.joinToString { "import $it" }} does not resolve: left out of the default imports")
        code.addImports(resolving)
    }

    private fun resolves(imports: List<String>): Boolean =
        runCatching { host.execute(imports.joinToString("\n") { "import $it" }) }.isSuccess

    /** Runs [action], one step of loading library [name]; its failure ends the loading of that library. */
    private inline fun step(name: String, what: String, action: () -> Unit) {
        try {
            action()
        } catch (e: Throwable) {
            if (e is VirtualMachineError && e !is StackOverflowError) throw e
            throw LibraryFault(Faults.describe(name, what, e))
        }
    }

    /** Whether an integration class [fqn] may load, by the rules libraries gave; null when none decides. */
    fun acceptsIntegrationTypeName(fqn: String): Boolean? = typeNameRules.asReversed().firstNotNullOfOrNull { it.accepts(fqn) }

    private class LibraryFault(message: String) : RuntimeException(message)

    companion object {
        /** How a cell's `USE {}` is named in reports. */
        fun origin(cellFileName: String): String = "the USE {} of $cellFileName"
    }
}

/** A library's fault as one located line: which library, which of its steps or callbacks, what it threw and where. */
internal object Faults {
    private val ENGINE_FRAMES =
        listOf("org.kotlinllm.", "java.", "jdk.", "kotlin.", "kotlinx.coroutines.", "org.jetbrains.kotlinx.jupyter.api.")

    fun describe(library: String, what: String, error: Throwable): String {
        if (error is HostCodeFailure) return "$library: $what failed:\n${error.message}"
        val frame = error.stackTrace.firstOrNull { frame -> ENGINE_FRAMES.none { frame.className.startsWith(it) } }
        val at = frame?.let { " (at ${it.className}.${it.methodName}(${it.fileName}:${it.lineNumber}))" }.orEmpty()
        val message = error.localizedMessage?.let { ": $it" }.orEmpty()
        return "$library: $what threw ${error.javaClass.simpleName}$message$at"
    }
}
