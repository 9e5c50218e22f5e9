package org.kotlinllm.script.internal.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.CodeCell
import org.jetbrains.kotlinx.jupyter.api.CodePreprocessor
import org.jetbrains.kotlinx.jupyter.api.DisplayContainer
import org.jetbrains.kotlinx.jupyter.api.DisplayResultWithCell
import org.jetbrains.kotlinx.jupyter.api.ExtensionsProcessor
import org.jetbrains.kotlinx.jupyter.api.FieldValue
import org.jetbrains.kotlinx.jupyter.api.FieldsProcessor
import org.jetbrains.kotlinx.jupyter.api.HtmlData
import org.jetbrains.kotlinx.jupyter.api.JREInfoProvider
import org.jetbrains.kotlinx.jupyter.api.JupyterClientType
import org.jetbrains.kotlinx.jupyter.api.KernelRunMode
import org.jetbrains.kotlinx.jupyter.api.KotlinKernelHost
import org.jetbrains.kotlinx.jupyter.api.KotlinKernelVersion
import org.jetbrains.kotlinx.jupyter.api.LibraryLoader
import org.jetbrains.kotlinx.jupyter.api.MimeTypedResult
import org.jetbrains.kotlinx.jupyter.api.Notebook
import org.jetbrains.kotlinx.jupyter.api.RenderersProcessor
import org.jetbrains.kotlinx.jupyter.api.ResultsAccessor
import org.jetbrains.kotlinx.jupyter.api.SessionOptions
import org.jetbrains.kotlinx.jupyter.api.StandaloneKernelRunMode
import org.jetbrains.kotlinx.jupyter.api.TextRenderersProcessor
import org.jetbrains.kotlinx.jupyter.api.ThrowableRenderersProcessor
import org.jetbrains.kotlinx.jupyter.api.VariableState
import org.jetbrains.kotlinx.jupyter.api.dependencies.DependencyManager
import org.jetbrains.kotlinx.jupyter.api.libraries.ColorScheme
import org.jetbrains.kotlinx.jupyter.api.libraries.ColorSchemeChangedCallback
import org.jetbrains.kotlinx.jupyter.api.libraries.CommManager
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinition
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryResolutionRequest
import org.jetbrains.kotlinx.jupyter.protocol.api.KernelLoggerFactory
import org.kotlinllm.script.internal.compiler.source.DeclaredName
import org.kotlinllm.script.internal.jupyterapi.extensions.NotebookExtensions
import org.kotlinllm.script.internal.jupyterapi.extensions.Renderers
import org.kotlinllm.script.internal.session.SessionSymbols
import org.kotlinllm.script.runtime.readPassword
import org.slf4j.Logger
import org.slf4j.LoggerFactory
import java.nio.file.Path

/**
 * The `notebook` of one session, as JetBrains' kernel API defines it: its cells and their results, its variables, its
 * processors, the host libraries act through. What this kernel has no counterpart for (comms, the dependency
 * manager, a library loader of JetBrains' own) throws, naming the member.
 */
internal class KernelNotebook(
    private val host: KotlinKernelHost,
    private val history: CellHistory,
    private val symbols: SessionSymbols,
    private val extensions: NotebookExtensions,
    private val descriptors: (String, Map<String, String>) -> LibraryDefinition,
) : Notebook {
    private val options = KernelSessionOptions()

    @Volatile
    private var colorScheme: ColorScheme? = null

    override val workingDir: Path get() = Path.of("").toAbsolutePath()
    override val executionHost: KotlinKernelHost get() = host
    override val cellsList: Collection<CodeCell> get() = history.all
    override val variablesState: Map<String, VariableState> get() = variables()
    override val cellVariables: Map<Int, Set<String>> get() = history.variables()
    override val resultsAccessor: ResultsAccessor get() = history
    override val sessionOptions: SessionOptions get() = options
    override val intermediateClassLoader: ClassLoader get() = KernelNotebook::class.java.classLoader
    override val kernelVersion: KotlinKernelVersion get() = KernelFacts.version
    override val jreInfo: JREInfoProvider get() = JavaRuntime

    /** Not one JetBrains knows (nor `KOTLIN_NOTEBOOK`, for which libraries emit iframes that only it shows). */
    override val jupyterClientType: JupyterClientType get() = JupyterClientType.UNKNOWN
    override val kernelRunMode: KernelRunMode get() = StandaloneKernelRunMode
    override val currentColorScheme: ColorScheme? get() = colorScheme
    override val libraryRequests: Collection<LibraryResolutionRequest> get() = emptyList()

    override val displays: DisplayContainer = object : DisplayContainer {
        override fun getAll(): List<DisplayResultWithCell> = history.allDisplays()

        override fun getById(id: String?): List<DisplayResultWithCell> = history.allDisplays().filter { it.id == id }
    }

    override val renderersProcessor: RenderersProcessor get() = extensions.renderers
    override val textRenderersProcessor: TextRenderersProcessor get() = extensions.textRenderers
    override val throwableRenderersProcessor: ThrowableRenderersProcessor get() = extensions.throwableRenderers
    override val fieldsHandlersProcessor: FieldsProcessor get() = extensions.fieldHandlers
    override val beforeCellExecutionsProcessor: ExtensionsProcessor<(KotlinKernelHost) -> Any?> get() = extensions.beforeCell
    override val afterCellExecutionsProcessor: ExtensionsProcessor<(KotlinKernelHost, Any, FieldValue) -> Unit> get() = extensions.afterCell
    override val shutdownExecutionsProcessor: ExtensionsProcessor<(KotlinKernelHost) -> Any?> get() = extensions.shutdown
    override val codePreprocessorsProcessor: ExtensionsProcessor<CodePreprocessor> get() = extensions.codePreprocessors
    override val interruptionCallbacksProcessor: ExtensionsProcessor<(KotlinKernelHost) -> Unit> get() = extensions.interruption
    override val colorSchemeChangeCallbacksProcessor: ExtensionsProcessor<ColorSchemeChangedCallback> get() = extensions.colorSchemeChange

    override val dependencyManager: DependencyManager get() = missing("dependencyManager (use @file:DependsOn or USE { dependencies(…) })")
    override val libraryLoader: LibraryLoader get() = missing("libraryLoader (use USE(…) or loadLibraryDescriptor)")
    override val commManager: CommManager get() = missing("commManager (comms are not bridged to the Jupyter client yet)")
    override val loggerFactory: KernelLoggerFactory = object : KernelLoggerFactory {
        override fun getLogger(category: String): Logger = LoggerFactory.getLogger(category)

        override fun getLogger(clazz: Class<*>): Logger = LoggerFactory.getLogger(clazz)
    }

    override fun getCell(id: Int): CodeCell = history.cell(id)

    override fun getResult(id: Int): Any? = history.cell(id).result

    override fun getAllDisplays(): List<DisplayResultWithCell> = history.allDisplays()

    override fun getDisplaysById(id: String?): List<DisplayResultWithCell> = displays.getById(id)

    override fun history(before: Int): CodeCell? = history.history(before)

    override fun changeColorScheme(newScheme: ColorScheme) {
        colorScheme = newScheme
        extensions.colorSchemeChange.registeredExtensions().forEach { it.schemeChanged(newScheme) }
    }

    override fun renderHtmlAsIFrame(data: HtmlData): MimeTypedResult = data.toIFrame(colorScheme)

    override fun getLibraryFromDescriptor(descriptorText: String, options: Map<String, String>): LibraryDefinition =
        descriptors(descriptorText, options)

    override fun prompt(message: String, isPassword: Boolean): String =
        if (isPassword) readPassword(message) else (print(message).let { readlnOrNull().orEmpty() })

    /** The session's properties by name, as declared last, less those a library marked internal. */
    private fun variables(): Map<String, VariableState> {
        val states = LinkedHashMap<String, VariableState>()
        for (name in symbols.names()) {
            val declaration = symbols.declaration(name) ?: continue
            if (declaration.kind != DeclaredName.Kind.PROPERTY) continue
            val property = SnippetProperty(name) { symbols.value(name)?.getOrThrow() }
            if (!extensions.isInternal(property)) states[name] = SnippetVariable(property)
        }
        return states
    }

    private fun missing(member: String): Nothing =
        throw UnsupportedOperationException("notebook.$member is not available in the kotlin-llm kernel")

    override fun toString(): String = "notebook (kotlin-llm kernel, JetBrains' API ${KernelFacts.API_KERNEL_VERSION})"
}
