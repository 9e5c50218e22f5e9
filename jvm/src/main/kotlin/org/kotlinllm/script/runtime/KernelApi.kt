@file:JvmName("KernelApiFunctions")
@file:Suppress("ktlint:standard:function-naming", "ktlint:standard:property-naming", "FunctionName")

package org.kotlinllm.script.runtime

import org.jetbrains.kotlinx.jupyter.api.JREInfoProvider
import org.jetbrains.kotlinx.jupyter.api.KotlinKernelHost
import org.jetbrains.kotlinx.jupyter.api.Notebook
import org.jetbrains.kotlinx.jupyter.api.ResultsAccessor
import org.jetbrains.kotlinx.jupyter.api.SessionOptions
import org.jetbrains.kotlinx.jupyter.api.libraries.JupyterIntegration
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinition
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinitionProducer

/*
 * JetBrains' kernel API as its notebooks reach it: the members of that kernel's implicit receiver
 * (`ScriptTemplateWithDisplayHelpers`), here top-level and default-imported by name for the K2 reason of
 * ScopeFunctions.kt. The objects behind them (`Notebook`, `KotlinKernelHost`) are the session's.
 */

/** The session's notebook: its cells, results, processors, displays, and the host libraries act through. */
public val notebook: Notebook get() = sessionNotebook()

/** The results of the cells by execution count: `Out[3]` is the value of cell 3. */
public val Out: ResultsAccessor get() = sessionNotebook().resultsAccessor

/** The session's options (JetBrains' `SessionOptions.resolveSources`, `serializeScriptData`). */
public val SessionOptions: SessionOptions get() = sessionNotebook().sessionOptions

/** The Java runtime the kernel runs on, with its version checks. */
public val JavaRuntimeUtils: JREInfoProvider get() = sessionNotebook().jreInfo

/**
 * Loads a library defined in the cell: `USE { import("java.util.concurrent.*"); render<Money> { HTML(…) } }`, with the
 * whole `JupyterIntegration.Builder`. As in JetBrains' kernel it applies once the cell's code ran, before its value is
 * shown: the value of the cell that calls it is rendered with its renderers already.
 */
public fun USE(builder: JupyterIntegration.Builder.() -> Unit) {
    val integration = object : JupyterIntegration() {
        override fun Builder.onLoaded() {
            builder()
        }
    }
    USE(integration)
}

/** Loads the library [definition] once the cell's code ran. */
public fun USE(definition: LibraryDefinition) {
    host().scheduleExecution { addLibrary(definition) }
}

/** Loads the libraries [definitions] once the cell's code ran. */
public fun USE(definitions: Iterable<LibraryDefinition>) {
    val all = definitions.toList()
    host().scheduleExecution { addLibraries(all) }
}

/** Loads the libraries [producer] defines for this notebook once the cell's code ran. */
public fun USE(producer: LibraryDefinitionProducer) {
    USE(producer.getDefinitions(sessionNotebook()))
}

/** Runs [code] as a cell of its own once this cell's code ran (JetBrains' `EXECUTE`). */
public fun EXECUTE(code: String) {
    host().scheduleExecution(code)
}

/**
 * Loads the library described by [descriptorText], a library descriptor in JetBrains' JSON format
 * (`{"imports": […], "dependencies": […], "init": […], …}`), with [options] for its `$name` properties.
 */
public fun loadLibraryDescriptor(descriptorText: String, options: Map<String, String> = emptyMap()) {
    USE(sessionNotebook().getLibraryFromDescriptor(descriptorText, options))
}

/** Loads the libraries of the `LibraryDefinitionProducer` classes named [fqns], found on the session's classpath. */
public fun loadLibraryProducers(vararg fqns: String) {
    val notebook = sessionNotebook()
    val definitions = fqns.flatMap { name -> (instance(name) as LibraryDefinitionProducer).getDefinitions(notebook) }
    USE(definitions)
}

/** Loads the `LibraryDefinition` classes named [fqns], found on the session's classpath. */
public fun loadLibraryDefinitions(vararg fqns: String) {
    USE(fqns.map { name -> instance(name) as LibraryDefinition })
}

/** The object or new instance of the class [name] as the session's snippets see it. */
private fun instance(name: String): Any {
    val type = Class.forName(name, true, host().lastClassLoader)
    val objectInstance = runCatching { type.getField("INSTANCE").get(null) }.getOrNull()
    return objectInstance ?: type.getDeclaredConstructor().newInstance()
}

private fun host(): KotlinKernelHost =
    sessionNotebook().executionHost ?: throw IllegalStateException("the notebook has no execution host outside a cell")

private fun sessionNotebook(): Notebook = SessionContext.currentOrOnly()?.notebook
    ?: throw IllegalStateException("no notebook: this code does not run in a kotlin-llm session")

/**
 * The session's variables as JetBrains' kernel reports them: `Visible vars:` and one tab-indented `name : value` line
 * each (empty when there are none); `vars()` shows them with their types.
 */
public val Notebook.variablesReport: String
    get() {
        val variables = variablesState
        if (variables.isEmpty()) return ""
        return buildString {
            append("Visible vars: \n")
            variables.forEach { (name, state) -> append("\t").append(name).append(" : ").append(state.stringValue).append("\n") }
        }
    }
