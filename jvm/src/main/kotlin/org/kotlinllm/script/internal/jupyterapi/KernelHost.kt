package org.kotlinllm.script.internal.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.DisplayResult
import org.jetbrains.kotlinx.jupyter.api.FieldValue
import org.jetbrains.kotlinx.jupyter.api.KotlinKernelHost
import org.jetbrains.kotlinx.jupyter.api.MimeTypedResult
import org.jetbrains.kotlinx.jupyter.api.VariableDeclaration
import org.jetbrains.kotlinx.jupyter.api.embedded.InMemoryReplResultsHolder
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinition
import org.kotlinllm.script.internal.pipeline.HostCode
import org.kotlinllm.script.internal.pipeline.RunResult
import org.kotlinllm.script.internal.report.SnippetNames
import org.kotlinllm.script.internal.routing.SessionDisplay
import org.kotlinllm.script.internal.session.ProvidedProperties
import org.kotlinllm.script.runtime.ProvidedValues
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ConcurrentLinkedQueue

/** Code a library or the host asked to run failed: [message] is the engine's report of it. */
internal class HostCodeFailure(message: String, cause: Throwable?) : RuntimeException(message, cause)

/**
 * The session as JetBrains' libraries act on it (`KotlinKernelHost`): displays, code run as snippets of their own
 * after the cell ([HostCode]), declarations, libraries. What a cell's own code asks of it while it runs (a `USE {}`,
 * a declaration) waits until the cell's code ran, as JetBrains' `scheduleExecution` does.
 */
internal class KernelHost(
    private val code: HostCode,
    private val display: SessionDisplay,
    private val history: CellHistory,
    private val libraries: () -> LibraryLoading,
) : KotlinKernelHost {
    private val scheduled = ConcurrentLinkedQueue<KotlinKernelHost.() -> Any?>()
    private val results = ReplResults()

    override fun display(value: Any, id: String?) {
        display.display(value, id, update = false)
        if (value is DisplayResult) history.history(0)?.displays?.add(value)
    }

    override fun updateDisplay(value: Any, id: String?) {
        display.display(value, id, update = true)
    }

    override fun render(value: Any?): DisplayResult? {
        if (value is DisplayResult) return value
        val bundle = display.bundleOf(value)
        return MimeTypedResult(bundle.data, false, bundle.id)
    }

    override fun clearOutput(wait: Boolean) {
        display.clearOutput(wait)
    }

    override fun scheduleExecution(execution: KotlinKernelHost.() -> Any?) {
        scheduled += execution
    }

    override fun <T> execute(callback: KotlinKernelHost.() -> T): T = callback(this)

    override fun execute(code: String): FieldValue {
        val run = this.code.execute(code)
        return when (val result = run.result) {
            is RunResult.Value -> FieldValue(result.value, null)
            is RunResult.Error -> throw HostCodeFailure(result.message, run.thrown)
        }
    }

    override fun addLibraries(libraries: Collection<LibraryDefinition>) {
        val all = libraries.toList()
        if (code.inCellCode) scheduled += {
            libraries().apply(all, LibraryLoading.origin(code.cellFileName))
        } else libraries().apply(all, null)
    }

    override fun acceptsIntegrationTypeName(fqn: String): Boolean? = libraries().acceptsIntegrationTypeName(fqn)

    override fun loadKotlinArtifacts(artifacts: Collection<String>, version: String?) {
        val shipped = KotlinVersion.CURRENT.toString()
        val lines = artifacts.joinToString("\n") { "@file:DependsOn(\"org.jetbrains.kotlin:kotlin-$it:${version ?: shipped}\")" }
        if (lines.isNotEmpty()) later { execute(lines) }
    }

    // the kernel's kotlin-stdlib has the JDK 7 and 8 extensions (merged into it since Kotlin 1.8)
    override fun loadStdlibJdkExtensions(version: String?) = Unit

    override fun declare(variables: Iterable<VariableDeclaration>) {
        val all = variables.toList()
        if (all.isNotEmpty()) later { declareNow(all) }
    }

    /** Declares [variables] with a snippet whose initializers read their values from [ProvidedValues]. */
    private fun declareNow(variables: List<VariableDeclaration>) {
        val id = ProvidedValues.register(variables.associate { it.name to it.value })
        try {
            execute(
                variables.joinToString("\n") { variable ->
                    val type = Declarations.typeText(variable.type, variable.value)
                    val keyword = if (variable.isMutable) "var" else "val"
                    "@Suppress(\"UNCHECKED_CAST\") $keyword `${variable.name}`: $type = " +
                        "${ProvidedValues::class.qualifiedName}.get(${id}L, \"${variable.name}\") as $type"
                },
            )
        } finally {
            ProvidedValues.unregister(id)
        }
    }

    /** [action] now, or once the cell's own code ran when it runs now. */
    private fun later(action: () -> Unit) {
        if (code.inCellCode) scheduled += { action() } else action()
    }

    override val lastClassLoader: ClassLoader get() = code.classLoader

    override val inMemoryReplResultsHolder: InMemoryReplResultsHolder get() = results

    /** Runs what was scheduled, in order, until nothing is left (a scheduled action may schedule more). */
    fun runScheduled(onFailure: (Throwable) -> Unit) {
        while (true) {
            val next = scheduled.poll() ?: return
            try {
                next(this)
            } catch (e: Throwable) {
                if (e is VirtualMachineError && e !is StackOverflowError) throw e
                onFailure(e)
            }
        }
    }

    private class ReplResults : InMemoryReplResultsHolder {
        private val values = ConcurrentHashMap<String, Any?>()

        override fun getReplResult(id: String): Any? = values[id]

        override fun addReplResult(result: Any?): String = "result_${values.size + 1}".also { values[it] = result }

        override fun setReplResult(id: String, result: Any?) {
            values[id] = result
        }

        override fun removeReplResult(id: String): Boolean = values.remove(id) != null

        override val size: Int get() = values.size
    }
}

/** How a declared variable's type is written in the snippet declaring it. */
internal object Declarations {
    /** [type] as source when snippets can name it, else the value's public class, else `Any?`. */
    fun typeText(type: kotlin.reflect.KType?, value: Any?): String {
        // a snippet's class is named as the snippets name it (`Config`, not `Snippet3.Config`)
        val declared = type?.takeIf { ProvidedProperties.nameable(it) }?.let(ProvidedProperties::render)
        if (declared != null) return SnippetNames.clean(declared)
        val ofValue = ProvidedProperties.typeOfValue(value)
        return if (ProvidedProperties.nameable(ofValue)) SnippetNames.clean(ProvidedProperties.render(ofValue)) else "Any?"
    }
}
