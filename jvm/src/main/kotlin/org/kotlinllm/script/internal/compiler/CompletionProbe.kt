package org.kotlinllm.script.internal.compiler

import org.jetbrains.kotlin.cli.jvm.compiler.KotlinCoreEnvironment
import org.jetbrains.kotlin.compiler.plugin.getCompilerExtensions
import org.jetbrains.kotlin.config.CompilerConfiguration
import org.jetbrains.kotlin.fir.FirModuleData
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.SessionConfiguration
import org.jetbrains.kotlin.fir.declarations.FirFile
import org.jetbrains.kotlin.fir.extensions.FirExtensionRegistrar
import org.jetbrains.kotlin.fir.pipeline.buildFirFromKtFiles
import org.jetbrains.kotlin.fir.pipeline.runResolution
import org.jetbrains.kotlin.fir.resolve.ScopeSession
import org.jetbrains.kotlin.fir.session.FirJvmSessionFactory
import org.jetbrains.kotlin.fir.session.KmpModuleKind
import org.jetbrains.kotlin.fir.session.environment.AbstractProjectFileSearchScope
import org.jetbrains.kotlin.name.Name
import org.jetbrains.kotlin.psi.KtNonPublicApi
import org.jetbrains.kotlin.psi.KtPsiFactory
import org.jetbrains.kotlin.scripting.compiler.plugin.definitions.scriptRefinedCompilationConfigurationsCache
import org.jetbrains.kotlin.scripting.compiler.plugin.fir.FirScriptCompilationComponent
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompilationState
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.ReplModuleDataProvider
import org.jetbrains.kotlin.scripting.definitions.ScriptPriorities
import org.jetbrains.kotlin.scripting.resolve.KtFileScriptSource
import kotlin.script.experimental.host.ScriptingHostConfiguration

/** The K2 frontend's resolution of a probed text: its [file] resolved in [session], which sees the REPL history. */
internal class ResolvedProbe(val session: FirSession, val scopeSession: ScopeSession, val file: FirFile)

/**
 * Resolves a text as the next snippet would be, with the K2 frontend only (no checkers, no code generation), for
 * completion and inspection. This mirrors the first half of the K2 REPL's private `compileImpl` (Kotlin 2.4.21:
 * parse, mark as a REPL snippet, create a source session of a new snippet module, build the FIR, resolve), which has
 * no public entry point, and undoes what that leaves in the shared compilation state: the history ignores the probe,
 * its module leaves the module list, its enhanced Java members leave the shared cache, and its refined script
 * configuration leaves the refinement cache. Reflection reaches the compilation state's internal fields, as in
 * [CompilerMemory]; if anything fails, the probe fails and its caller falls back.
 *
 * Not thread-safe: the caller holds the compiler's lock (the CLI compiler's caches are plain maps).
 */
internal class CompletionProbe(
    private val state: K2ReplCompilationState,
    private val history: TransactionalReplHistory,
    private val memory: CompilerMemory,
) {
    private val moduleDataProvider = internal<ReplModuleDataProvider>("getModuleDataProvider")
    private val sessionFactoryContext = internal<FirJvmSessionFactory.Context>("getSessionFactoryContext")
    private val hostConfiguration = internal<ScriptingHostConfiguration>("getHostConfiguration")
    private val environment: KotlinCoreEnvironment = internal<Any>("getCompilerContext").let { context ->
        context.javaClass.methods.first { it.name == "getEnvironment" && it.parameterCount == 0 }.invoke(context) as KotlinCoreEnvironment
    }
    private val factory = KtPsiFactory(state.project, false)

    /** Resolves [text] as the next snippet and gives the resolution to [read], then forgets the probe. */
    @OptIn(KtNonPublicApi::class, SessionConfiguration::class)
    fun <T> resolve(text: String, read: (ResolvedProbe) -> T): T {
        // no snippet is numbered 0: its class name `Snippet0` is stripped from types as the snippets' are
        val fileName = "snippet0.kts"
        val ktFile = factory.createFile(fileName, text)
        val script = ktFile.script ?: error("the probe's text is not a script")
        script.markAsReplSnippet()
        script.putUserData(ScriptPriorities.PRIORITY_KEY, history.getSnippetCount())
        val configuration: CompilerConfiguration = environment.configuration.copy()
        val registrars = configuration.getCompilerExtensions(FirExtensionRegistrar)
        var moduleData: FirModuleData? = null
        return try {
            history.probing {
                val module = moduleDataProvider.addNewSnippetModuleData(Name.special("<REPL-probe-$fileName>"))
                moduleData = module
                val session = FirJvmSessionFactory.createSourceSession(
                    module,
                    AbstractProjectFileSearchScope.EMPTY,
                    createIncrementalCompilationSymbolProviders = { null },
                    registrars,
                    configuration,
                    context = sessionFactoryContext,
                    needRegisterJavaElementFinder = false,
                    kmpModuleKind = KmpModuleKind.SingleModule,
                    init = {},
                )
                session.register(FirScriptCompilationComponent::class, FirScriptCompilationComponent(hostConfiguration))
                val raw = session.buildFirFromKtFiles(listOf(ktFile))
                val (scopeSession, files) = session.runResolution(raw)
                read(ResolvedProbe(session, scopeSession, files.single()))
            }
        } finally {
            moduleData?.let { module ->
                moduleDataProvider.moduleDataHistory.remove(module)
                memory.forgetModule(module)
            }
            hostConfiguration[ScriptingHostConfiguration.scriptRefinedCompilationConfigurationsCache]
                ?.clearRefinedCompilationConfiguration(KtFileScriptSource(ktFile))
        }
    }

    private inline fun <reified T> internal(getter: String): T {
        val method = K2ReplCompilationState::class.java.methods.first { it.name.startsWith(getter) && it.parameterCount == 0 }
        return method.invoke(state) as T
    }
}
