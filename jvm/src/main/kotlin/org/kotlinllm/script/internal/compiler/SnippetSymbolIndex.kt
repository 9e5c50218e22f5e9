package org.kotlinllm.script.internal.compiler

import org.jetbrains.kotlin.fir.FirModuleData
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.SessionConfiguration
import org.jetbrains.kotlin.fir.java.JavaSymbolProvider
import org.jetbrains.kotlin.fir.resolve.providers.FirSymbolNamesProvider
import org.jetbrains.kotlin.fir.resolve.providers.FirSymbolProvider
import org.jetbrains.kotlin.fir.resolve.providers.FirSymbolProviderInternals
import org.jetbrains.kotlin.fir.resolve.providers.firProvider
import org.jetbrains.kotlin.fir.session.StructuredProviders
import org.jetbrains.kotlin.fir.session.structuredProviders
import org.jetbrains.kotlin.fir.symbols.impl.FirCallableSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirNamedFunctionSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirPropertySymbol
import org.jetbrains.kotlin.name.CallableId
import org.jetbrains.kotlin.name.ClassId
import org.jetbrains.kotlin.name.FqName
import org.jetbrains.kotlin.name.Name

/**
 * One symbol provider for the declarations of every kept snippet, looked up by name.
 *
 * The K2 REPL makes each snippet's compiler session depend on the sessions of all earlier snippets, and a lookup of
 * any class or function (`kotlin.Int`, `println`) asks each of their providers in turn before the libraries': two
 * per kept snippet (its Kotlin declarations, and Java sources, which a snippet never has). After some hundreds of
 * declaring snippets most of a compilation went into those misses. Here each kept snippet's Kotlin provider is
 * indexed by the names it declares when it is kept, its Java provider is dropped (over an empty scope it answers
 * nothing), and the sessions offer this one provider instead, through the first of them (the [carrier]): a later
 * snippet's session sees the same declarations, in the same order, at the cost of one map lookup.
 *
 * Providers of other kinds (a compiler plugin's generated declarations) stay in their sessions' lists, unless they
 * declare nothing top-level: kotlinx.serialization's plugin gives every snippet session one that generates only
 * members and nested classes (found through their classes, not through this list), and asking hundreds of those at
 * every lookup made long sessions markedly slower.
 */
internal class SnippetSymbolIndex private constructor(private val carrier: FirSession) : FirSymbolProvider(carrier) {

    /** The provider of each top-level class, by its package and name; the first snippet declaring one wins. */
    private val classes = HashMap<ClassId, FirSymbolProvider>()

    /** The providers of each top-level callable name, oldest first, as the compiler asks them. */
    private val callables = HashMap<CallableId, MutableList<FirSymbolProvider>>()
    private val classNames = HashMap<FqName, MutableSet<Name>>()
    private val callableNames = HashMap<FqName, MutableSet<Name>>()
    private val packages = HashSet<FqName>()

    private fun add(provider: FirSymbolProvider) {
        val names = provider.symbolNamesProvider
        for (packageName in names.getPackageNames().orEmpty()) {
            val fqName = FqName(packageName)
            packages += fqName
            for (name in names.getTopLevelClassifierNamesInPackage(fqName).orEmpty()) {
                classes.putIfAbsent(ClassId(fqName, name), provider)
                classNames.getOrPut(fqName) { HashSet() } += name
            }
            for (name in names.getTopLevelCallableNamesInPackage(fqName).orEmpty()) {
                callables.getOrPut(CallableId(fqName, name)) { ArrayList(1) } += provider
                callableNames.getOrPut(fqName) { HashSet() } += name
            }
        }
    }

    override fun getClassLikeSymbolByClassId(classId: ClassId): FirClassLikeSymbol<*>? =
        classes[classId.outermostClassId]?.getClassLikeSymbolByClassId(classId)

    @FirSymbolProviderInternals
    override fun getTopLevelCallableSymbolsTo(destination: MutableList<FirCallableSymbol<*>>, packageFqName: FqName, name: Name) {
        callables[CallableId(packageFqName, name)]?.forEach { it.getTopLevelCallableSymbolsTo(destination, packageFqName, name) }
    }

    @FirSymbolProviderInternals
    override fun getTopLevelFunctionSymbolsTo(destination: MutableList<FirNamedFunctionSymbol>, packageFqName: FqName, name: Name) {
        callables[CallableId(packageFqName, name)]?.forEach { it.getTopLevelFunctionSymbolsTo(destination, packageFqName, name) }
    }

    @FirSymbolProviderInternals
    override fun getTopLevelPropertySymbolsTo(destination: MutableList<FirPropertySymbol>, packageFqName: FqName, name: Name) {
        callables[CallableId(packageFqName, name)]?.forEach { it.getTopLevelPropertySymbolsTo(destination, packageFqName, name) }
    }

    override fun hasPackage(fqName: FqName): Boolean = fqName in packages

    override val symbolNamesProvider: FirSymbolNamesProvider = object : FirSymbolNamesProvider() {
        override fun getPackageNames(): Set<String> = packages.mapTo(HashSet()) { it.asString() }
        override val hasSpecificClassifierPackageNamesComputation: Boolean get() = false
        override val hasSpecificCallablePackageNamesComputation: Boolean get() = false
        override fun getTopLevelClassifierNamesInPackage(packageFqName: FqName): Set<Name> = classNames[packageFqName].orEmpty()
        override fun getTopLevelCallableNamesInPackage(packageFqName: FqName): Set<Name> = callableNames[packageFqName].orEmpty()
    }

    internal companion object {
        /**
         * Indexes the snippet modules [fresh] (kept since the last update, oldest first), creating the index in the
         * first one's session, and returns it; [index] is the one made before, if any.
         */
        @OptIn(SessionConfiguration::class)
        fun update(index: SnippetSymbolIndex?, fresh: List<FirModuleData>): SnippetSymbolIndex? {
            var current = index
            for (module in fresh) {
                val session = module.session
                val structured = session.structuredProviders
                val own = session.firProvider.symbolProvider
                val others = structured.sourceProviders.filter { it !== own && it !is JavaSymbolProvider && declaresTopLevel(it) }
                val target = current ?: SnippetSymbolIndex(session).also { current = it }
                if (own in structured.sourceProviders) target.add(own)
                val offered = if (target.carrier === session) listOf(target) + others else others
                session.register(
                    StructuredProviders::class,
                    StructuredProviders(offered, structured.incrementalProvider, structured.dependencyProviders, structured.sharedProvider),
                )
            }
            return current
        }

        /** Whether [provider] may answer a top-level lookup: false only when its names say it has nothing to give. */
        private fun declaresTopLevel(provider: FirSymbolProvider): Boolean {
            val names = provider.symbolNamesProvider
            val packages = names.getPackageNames() ?: return true
            return packages.any { packageName ->
                val fqName = FqName(packageName)
                names.getTopLevelClassifierNamesInPackage(fqName)?.isNotEmpty() != false ||
                    names.getTopLevelCallableNamesInPackage(fqName)?.isNotEmpty() != false
            }
        }
    }
}
