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
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.SharedScriptCompilationContext
import org.jetbrains.kotlin.scripting.definitions.ScriptPriorities
import org.jetbrains.kotlin.scripting.resolve.KtFileScriptSource
import org.kotlinllm.script.internal.compiler.K2Internals.Lookup
import org.kotlinllm.script.internal.compiler.K2Internals.Step
import kotlin.script.experimental.host.ScriptingHostConfiguration

/** The K2 frontend's resolution of a probed text: its [file] resolved in [session], which sees the REPL history. */
internal class ResolvedProbe(val session: FirSession, val scopeSession: ScopeSession, val file: FirFile)

/**
 * Resolves a text as the next snippet would be, with the K2 frontend only (no checkers, no code generation), for
 * completion and inspection. This mirrors the first half of the K2 REPL's private `compileImpl` (Kotlin 2.4.21:
 * parse, mark as a REPL snippet, create a source session of a new snippet module, build the FIR, resolve), which has
 * no public entry point, and undoes what that leaves in the shared compilation state: the history ignores the probe,
 * its module leaves the module list, its enhanced Java members leave the shared cache, and its refined script
 * configuration leaves the refinement cache. The compilation state's internal members are reached through
 * [K2Internals]; when one is missing the probe is not [available], and when anything fails the probe fails: either
 * way its caller falls back.
 *
 * Not thread-safe: the caller holds the compiler's lock (the CLI compiler's caches are plain maps).
 */
internal class CompletionProbe(
    private val state: K2ReplCompilationState,
    private val history: TransactionalReplHistory,
    private val memory: CompilerMemory,
) {
    /** The compilation state's internal members the probe uses, or null when one of them is missing. */
    private class Internals(
        val moduleDataProvider: ReplModuleDataProvider,
        val sessionFactoryContext: FirJvmSessionFactory.Context,
        val hostConfiguration: ScriptingHostConfiguration,
        val environment: KotlinCoreEnvironment,
    )

    private val internals: Internals? = run {
        val moduleDataProvider = K2Internals.call<ReplModuleDataProvider>(Lookup.MODULE_DATA_PROVIDER, state)
        val sessionFactoryContext = K2Internals.call<FirJvmSessionFactory.Context>(Lookup.SESSION_FACTORY_CONTEXT, state)
        val hostConfiguration = K2Internals.call<ScriptingHostConfiguration>(Lookup.HOST_CONFIGURATION, state)
        val environment = K2Internals.call<SharedScriptCompilationContext>(Lookup.COMPILER_CONTEXT, state)?.environment
        if (moduleDataProvider == null || sessionFactoryContext == null || hostConfiguration == null || environment == null) {
            null
        } else {
            Internals(moduleDataProvider, sessionFactoryContext, hostConfiguration, environment)
        }
    }
    private val factory = KtPsiFactory(state.project, false)

    /** Whether the compiler's internals the probe needs were found (see [K2Internals]). */
    val available: Boolean get() = internals != null

    /** Resolves [text] as the next snippet and gives the resolution to [read], then forgets the probe. */
    @OptIn(KtNonPublicApi::class, SessionConfiguration::class)
    fun <T> resolve(text: String, read: (ResolvedProbe) -> T): T {
        val internals = checkNotNull(internals) { "the K2 REPL's internals the completion probe needs are missing (see K2Internals)" }
        val moduleDataProvider = internals.moduleDataProvider
        val hostConfiguration = internals.hostConfiguration
        // no snippet is numbered 0: its class name `Snippet0` is stripped from types as the snippets' are
        val fileName = "snippet0.kts"
        val ktFile = factory.createFile(fileName, text)
        val script = ktFile.script ?: error("the probe's text is not a script")
        script.markAsReplSnippet()
        script.putUserData(ScriptPriorities.PRIORITY_KEY, history.getSnippetCount())
        val configuration: CompilerConfiguration = internals.environment.configuration.copy()
        var moduleData: FirModuleData? = null
        return try {
            history.probing {
                val module = moduleDataProvider.addNewSnippetModuleData(Name.special("<REPL-probe-$fileName>"))
                moduleData = module
                val session = sourceSession(internals, module, configuration)
                val raw = session.buildFirFromKtFiles(listOf(ktFile))
                val (scopeSession, files) = session.runResolution(raw)
                read(ResolvedProbe(session, scopeSession, files.single())).also { K2Internals.done(Step.PROBE) }
            }
        } finally {
            moduleData?.let { module ->
                if (moduleDataProvider.moduleDataHistory.remove(module)) K2Internals.done(Step.FORGET_PROBE)
                memory.forgetModule(module)
            }
            hostConfiguration[ScriptingHostConfiguration.scriptRefinedCompilationConfigurationsCache]
                ?.clearRefinedCompilationConfiguration(KtFileScriptSource(ktFile))
        }
    }

    /** The FIR session of the probe's module, made as the REPL makes a snippet's, with the compiler plugins registered. */
    @OptIn(SessionConfiguration::class)
    private fun sourceSession(internals: Internals, module: FirModuleData, configuration: CompilerConfiguration): FirSession {
        val session = FirJvmSessionFactory.createSourceSession(
            module,
            AbstractProjectFileSearchScope.EMPTY,
            createIncrementalCompilationSymbolProviders = { null },
            configuration.getCompilerExtensions(FirExtensionRegistrar),
            configuration,
            context = internals.sessionFactoryContext,
            needRegisterJavaElementFinder = false,
            kmpModuleKind = KmpModuleKind.SingleModule,
            init = {},
        )
        session.register(FirScriptCompilationComponent::class, FirScriptCompilationComponent(internals.hostConfiguration))
        return session
    }
}
