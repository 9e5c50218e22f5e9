package org.kotlinllm.script.internal

import io.github.oshai.kotlinlogging.KotlinLogging
import org.jetbrains.kotlin.fir.FirModuleData
import org.jetbrains.kotlin.fir.declarations.FirDeclaration
import org.jetbrains.kotlin.fir.session.FirJvmSessionFactory
import org.jetbrains.kotlin.fir.java.enhancement.FirEnhancedSymbolsStorage
import org.jetbrains.kotlin.fir.symbols.FirBasedSymbol
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompilationState
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.ReplModuleDataProvider

private val logger = KotlinLogging.logger {}

/**
 * Frees the compiler data of snippets that declare and import nothing (`1 + 1`, `println(x)`): the K2 REPL keeps the
 * whole compiler session of every snippet (about half a MB), reachable from the list of snippet modules, the REPL
 * history, and the shared cache of enhanced Java members. Later snippets can refer to nothing of such a snippet, so
 * dropping it from all three bounds the memory of a long session of such cells. (The history is the caller's; the
 * latest Java element finder keeps the last snippet until the next compilation replaces it.)
 *
 * The module list and the cache are internal to the compiler and reached by reflection; if they cannot be, nothing
 * is freed and everything works as before.
 */
internal class CompilerMemory(private val state: K2ReplCompilationState) {

    private val modules: MutableList<FirModuleData>? = internal("the snippet modules") {
        val provider = K2ReplCompilationState::class.java.methods
            .first { it.name.startsWith("getModuleDataProvider") && it.parameterCount == 0 }
            .invoke(state) as ReplModuleDataProvider
        @Suppress("UNCHECKED_CAST")
        provider.moduleDataHistory as MutableList<FirModuleData>
    }

    private val enhancedMembers: List<MutableMap<*, *>>? get() = internal("the enhanced Java members") {
        val context = K2ReplCompilationState::class.java.methods
            .first { it.name.startsWith("getSessionFactoryContext") && it.parameterCount == 0 }
            .invoke(state) as FirJvmSessionFactory.Context
        val byOwner = context.predefinedJavaComponents.enhancementStorage.cacheByOwner.backingMap().orEmpty()
        byOwner.values.filterIsInstance<FirEnhancedSymbolsStorage.EnhancementSymbolsCache>().flatMap { symbols ->
            listOf(symbols.enhancedFunctions, symbols.enhancedVariables).mapNotNull { it.backingMap() }
        }
    }

    /** Forgets the module of the snippet compiled last, named [fileName], which declared nothing. */
    fun forgetLast(fileName: String) {
        val modules = modules ?: return
        val module = modules.lastOrNull()?.takeIf { fileName in it.name.asString() } ?: return
        modules.removeAt(modules.size - 1)
        for (map in enhancedMembers.orEmpty()) {
            map.keys.removeIf { key -> key.belongsTo(module) || map[key].belongsTo(module) }
        }
    }

    @OptIn(SymbolInternals::class)
    private fun Any?.belongsTo(module: FirModuleData): Boolean =
        ((this as? FirBasedSymbol<*>)?.fir as? FirDeclaration)?.moduleData === module

    private fun Any.backingMap(): MutableMap<*, *>? = generateSequence<Class<*>>(javaClass) { it.superclass }
        .firstNotNullOfOrNull { type -> type.declaredFields.firstOrNull { it.name == "map" } }
        ?.apply { isAccessible = true }
        ?.get(this) as? MutableMap<*, *>

    private fun <T> internal(what: String, reach: () -> T): T? = try {
        reach()
    } catch (e: Exception) {
        logger.warn(e) { "$what of the compiler cannot be reached: the memory of snippets that declare nothing stays" }
        null
    }
}
