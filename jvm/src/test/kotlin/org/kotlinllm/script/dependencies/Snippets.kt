package org.kotlinllm.script.dependencies

import org.jetbrains.kotlin.CoreEnvironmentDeprecation
import org.jetbrains.kotlin.cli.extensionsStorage
import org.jetbrains.kotlin.cli.jvm.compiler.EnvironmentConfigFiles
import org.jetbrains.kotlin.cli.jvm.compiler.KotlinCoreEnvironment
import org.jetbrains.kotlin.com.intellij.openapi.util.Disposer
import org.jetbrains.kotlin.compiler.plugin.CompilerPluginRegistrar
import org.jetbrains.kotlin.compiler.plugin.ExperimentalCompilerApi
import org.jetbrains.kotlin.config.CompilerConfiguration
import org.jetbrains.kotlin.psi.KtFile
import org.jetbrains.kotlin.psi.KtPsiFactory
import org.kotlinllm.script.internal.compiler.source.DependencyAnnotations

/** Parses snippets into PSI, as the session does before compiling them. One environment per test JVM. */
internal object Snippets {
    @OptIn(CoreEnvironmentDeprecation::class, CompilerConfiguration.Internals::class, ExperimentalCompilerApi::class)
    private val factory: KtPsiFactory by lazy {
        val configuration = CompilerConfiguration().apply { extensionsStorage = CompilerPluginRegistrar.ExtensionStorage() }
        val environment = KotlinCoreEnvironment.createForProduction(
            Disposer.newDisposable("dependency tests"),
            configuration,
            EnvironmentConfigFiles.JVM_CONFIG_FILES,
        )
        KtPsiFactory(environment.project, false)
    }

    private var counter = 0

    fun parse(code: String): KtFile = synchronized(this) { factory.createFile("snippet${++counter}.kts", code) }

    /** The dependency annotations of [code], read as the session reads them. */
    fun declared(code: String): DeclaredAnnotations = DependencyAnnotations.read(parse(code))
}
