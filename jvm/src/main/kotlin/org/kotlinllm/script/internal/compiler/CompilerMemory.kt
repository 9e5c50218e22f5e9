package org.kotlinllm.script.internal.compiler

import org.jetbrains.kotlin.cli.jvm.compiler.KotlinCliJavaFileManagerImpl
import org.jetbrains.kotlin.cli.jvm.index.JvmDependenciesDynamicCompoundIndex
import org.jetbrains.kotlin.cli.jvm.index.JvmDependenciesIndexBase
import org.jetbrains.kotlin.com.intellij.psi.impl.file.impl.JavaFileManager
import org.jetbrains.kotlin.fir.BuiltinTypes
import org.jetbrains.kotlin.fir.FirModuleData
import org.jetbrains.kotlin.fir.FirModuleVisibilityChecker
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.FirSessionComponent
import org.jetbrains.kotlin.fir.SessionConfiguration
import org.jetbrains.kotlin.fir.analysis.CheckersComponent
import org.jetbrains.kotlin.fir.analysis.checkers.FirInlineCheckerPlatformSpecificComponent
import org.jetbrains.kotlin.fir.analysis.checkers.FirPrimaryConstructorSuperTypeCheckerPlatformComponent
import org.jetbrains.kotlin.fir.analysis.checkers.inlineCheckerExtension
import org.jetbrains.kotlin.fir.analysis.checkers.primaryConstructorSuperTypePlatformSupport
import org.jetbrains.kotlin.fir.caches.FirCache
import org.jetbrains.kotlin.fir.caches.FirLazyValue
import org.jetbrains.kotlin.fir.declarations.FirAnnotationsPlatformSpecificSupportComponent
import org.jetbrains.kotlin.fir.declarations.FirDeclaration
import org.jetbrains.kotlin.fir.declarations.FirMemberDeclaration
import org.jetbrains.kotlin.fir.declarations.annotationPlatformSupport
import org.jetbrains.kotlin.fir.extensions.FirExtensionService
import org.jetbrains.kotlin.fir.extensions.extensionService
import org.jetbrains.kotlin.fir.java.FirJavaElementFinder
import org.jetbrains.kotlin.fir.java.FirJavaFacade
import org.jetbrains.kotlin.fir.java.FirSyntheticPropertiesStorage
import org.jetbrains.kotlin.fir.java.JavaSymbolProvider
import org.jetbrains.kotlin.fir.java.enhancement.FirEnhancedSymbolsStorage
import org.jetbrains.kotlin.fir.moduleVisibilityChecker
import org.jetbrains.kotlin.fir.resolve.providers.DEPENDENCIES_SYMBOL_PROVIDER_QUALIFIED_KEY
import org.jetbrains.kotlin.fir.resolve.providers.FirCachedSymbolNamesProvider
import org.jetbrains.kotlin.fir.resolve.providers.FirSymbolNamesProvider
import org.jetbrains.kotlin.fir.resolve.providers.dependenciesSymbolProvider
import org.jetbrains.kotlin.fir.resolve.providers.impl.FirCachingCompositeSymbolProvider
import org.jetbrains.kotlin.fir.resolve.providers.symbolProvider
import org.jetbrains.kotlin.fir.scopes.impl.FirDeclaredMemberScopeProvider
import org.jetbrains.kotlin.fir.scopes.impl.FirDynamicMembersStorage
import org.jetbrains.kotlin.fir.scopes.impl.FirIntersectionOverrideStorage
import org.jetbrains.kotlin.fir.scopes.impl.FirSubstitutionOverrideStorage
import org.jetbrains.kotlin.fir.scopes.impl.dynamicMembersStorage
import org.jetbrains.kotlin.fir.session.FirJvmSessionFactory
import org.jetbrains.kotlin.fir.symbols.FirBasedSymbol
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.types.FirCorrespondingSupertypesCache
import org.jetbrains.kotlin.fir.types.FirFunctionTypeKindService
import org.jetbrains.kotlin.fir.types.FirMissingDependencyStorage
import org.jetbrains.kotlin.fir.types.functionTypeService
import org.jetbrains.kotlin.it.unimi.dsi.fastutil.objects.Object2ObjectOpenHashMap
import org.jetbrains.kotlin.scripting.compiler.plugin.definitions.scriptRefinedCompilationConfigurationsCache
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.K2ReplCompilationState
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.ReplModuleDataProvider
import org.jetbrains.kotlin.scripting.definitions.ScriptConfigurationsProvider
import org.kotlinllm.script.internal.compiler.K2Internals.Lookup
import org.kotlinllm.script.internal.compiler.K2Internals.Step
import java.util.concurrent.locks.Lock
import kotlin.reflect.KClass
import kotlin.script.experimental.host.ScriptingHostConfiguration

/**
 * Bounds what the K2 REPL keeps of each snippet: the whole compiler session of every snippet, reachable from the
 * list of snippet modules, the REPL history, and the shared cache of enhanced Java members.
 *
 * - A snippet that declares and imports nothing (`1 + 1`, `println(x)`) can be referred to by no later snippet, so
 *   it is dropped from all three ([forgetLast]; the history is the caller's; the latest Java element finder keeps
 *   the last snippet until the next compilation replaces it).
 * - A snippet that declares something stays, as later snippets resolve its declarations through its session; but
 *   most of what that session holds are caches filled while the snippet itself was compiled, which a later
 *   compilation recomputes as it needs them, so [trimKept] empties them after every snippet. Its checkers (a set
 *   for every kind of declaration, expression and type) ran on its own code only, so its session gets an empty set of checkers. The
 *   set of package names with top-level functions that its composite provider computed once (the libraries'
 *   included) is the same set in every kept session: they share one, as they share the components that are the
 *   same in every session (the annotation classes the compiler treats specially, the kinds of function types, …)
 *   and the type references to the built-in types.
 * - A kept snippet's module is made a leaf ([makeLeaf]): it no longer lists the earlier snippets, which the newest
 *   snippet's module lists anyway.
 * - What later compilations fill again in kept sessions, or outside them, and would keep for the whole session: the
 *   kept sessions' caches of names by package are emptied after every snippet ([keptNames]), and the classpath
 *   index's lookups of packages with every full sweep ([forgetPackageLookups]).
 *
 * The module list and the caches are internal to the compiler and reached through [K2Internals], which records each
 * step done; what it cannot reach is not freed, and everything works as before.
 *
 * The K2 REPL keeping every snippet's compiler session, its caches and its module's list of every earlier module is
 * its design (no public KT issue found), not a crash: the memory grows with the session, and its compilations slow.
 */
internal class CompilerMemory(private val state: K2ReplCompilationState) {

    private val modules: MutableList<FirModuleData>? =
        K2Internals.call<ReplModuleDataProvider>(Lookup.MODULE_DATA_PROVIDER, state)?.moduleDataHistory

    /** The one provider of the kept snippets' declarations (see [SnippetSymbolIndex]). */
    private var index: SnippetSymbolIndex? = null

    /** How many times [trimKept] ran, and the snippet modules it has seen (indexed, trimmed once, made a leaf). */
    private var trims = 0
    private val known = HashSet<FirModuleData>()

    /** The compiler's project, over which a kept snippet's Java element finder is made again (see [makeLeaf]). */
    private val project = state.project

    /** What a kept snippet's session checks: nothing, as no later compilation checks its code. */
    private val noCheckers = CheckersComponent()

    /** The shared cache of enhanced Java members, by owner class (its entries are made as classes are enhanced). */
    private val enhancedByOwner: Map<*, *>? = K2Internals.attempt(Step.FORGET_ENHANCED_MEMBERS) {
        K2Internals.call<FirJvmSessionFactory.Context>(Lookup.SESSION_FACTORY_CONTEXT, state)
            ?.let { K2Internals.cacheEntries(it.predefinedJavaComponents.enhancementStorage.cacheByOwner) }
    }

    /**
     * The compiler's two caches of each snippet's refined script configuration, by file name: the CLI provider's
     * and the host configuration's. A configuration is read while its own snippet compiles only, and each entry
     * holds the snippet's source file with its document (a few kB), declaring or not.
     */
    private val configurations: List<MutableMap<*, *>> = listOfNotNull(
        K2Internals.call<ScriptConfigurationsProvider>(Lookup.SCRIPT_CONFIGURATIONS_PROVIDER, state)
            ?.let { K2Internals.read<MutableMap<*, *>>(Lookup.CONFIGURATIONS_CACHE, it) },
        K2Internals.call<ScriptingHostConfiguration>(Lookup.HOST_CONFIGURATION, state)
            ?.get(ScriptingHostConfiguration.scriptRefinedCompilationConfigurationsCache)
            ?.let { K2Internals.read<MutableMap<*, *>>(Lookup.REFINED_CACHE, it) },
    )

    /** Forgets the refined configurations of the snippets compiled so far (see [configurations]). */
    fun forgetConfigurations() {
        K2Internals.attempt(Step.FORGET_CONFIGURATIONS) {
            for (cache in configurations) {
                if (cache.isEmpty()) continue
                cache.clear()
                K2Internals.done(Step.FORGET_CONFIGURATIONS)
            }
        }
    }

    /**
     * Indexes the snippets kept since the last call ([SnippetSymbolIndex]) and makes each a leaf ([makeLeaf]).
     * Empties the compilation caches of the snippet kept last, and every [FULL_SWEEP_EVERY] snippets those of all
     * kept ones (a later compilation using a snippet's declarations fills some of them again; sweeping all after
     * every snippet took longer the longer the session), and drops the enhanced Java members of snippet modules
     * from the shared cache (those of the libraries' session stay: every snippet shares them).
     */
    @OptIn(SessionConfiguration::class)
    fun trimKept() {
        val modules = modules ?: return
        val snippetModules = modules.filter { it.name.asString().startsWith(SNIPPET_MODULE_PREFIX) }
        val fresh = snippetModules.filter { known.add(it) }
        K2Internals.attempt(Step.INDEX_KEPT) {
            index = SnippetSymbolIndex.update(index, fresh)
            if (fresh.isNotEmpty()) K2Internals.done(Step.INDEX_KEPT)
        }
        K2Internals.attempt(Step.MAKE_LEAF) { fresh.forEach { it.makeLeaf() } }
        K2Internals.attempt(Step.SHARE_COMPONENTS) { fresh.forEach { it.shareComponents() } }
        K2Internals.attempt(Step.EMPTY_NAME_CACHES) {
            fresh.mapNotNullTo(keptNames) { (it.session.symbolProvider as? FirCachingCompositeSymbolProvider)?.symbolNamesProvider }
            keptNames.forEach { it.emptyFilledLazyCaches() }
        }
        val sweep = ++trims % FULL_SWEEP_EVERY == 0
        K2Internals.attempt(Step.CLEAR_CACHES) {
            for (module in if (sweep) snippetModules else fresh) {
                module.session.register(CheckersComponent::class, noCheckers)
                for (component in module.session) {
                    if (component.javaClass in COMPILATION_CACHES && component.clearCaches()) K2Internals.done(Step.CLEAR_CACHES)
                    // a snippet has no Java sources: its Java provider only remembers the packages it was asked for
                    if (component is JavaSymbolProvider) component.clearJavaFacade()
                    if (component is FirCachingCompositeSymbolProvider) component.symbolNamesProvider.shareCallablePackageNames()
                }
            }
        }
        val kept = snippetModules.toHashSet()
        forgetEnhancedMembers { it in kept }
        if (sweep) K2Internals.attempt(Step.FORGET_PACKAGE_LOOKUPS) { forgetPackageLookups() }
    }

    /**
     * Empties the project's index of the classpath's packages by root: it remembers every package name it was asked
     * for, in each root (71 for the libraries), the answer "none" too, and the compiler asks for each new name a
     * snippet uses as a possible package (`a12`, `f12`): ~1 kB a declaring snippet, for the whole session. A lookup
     * after this reads the roots' directories again.
     */
    private fun forgetPackageLookups() {
        val manager = project.getService(JavaFileManager::class.java) as? KotlinCliJavaFileManagerImpl ?: return
        val compound = K2Internals.read<JvmDependenciesDynamicCompoundIndex>(Lookup.CLASSPATH_INDEX, manager) ?: return
        val indices = K2Internals.read<List<*>>(Lookup.INDICES, compound) ?: return
        for (index in indices.filterIsInstance<JvmDependenciesIndexBase>()) {
            val lock = K2Internals.read<Lock>(Lookup.INDEX_LOCK, index) ?: continue
            lock.lock()
            try {
                val byRoot = K2Internals.read<Lazy<*>>(Lookup.PACKAGE_CACHE, index)?.takeIf { it.isInitialized() }
                @Suppress("UNCHECKED_CAST")
                (byRoot?.value as? Array<Any?>)?.let { maps ->
                    // a new map each: a cleared one keeps its arrays
                    for (i in maps.indices) {
                        val map = maps[i] as? Object2ObjectOpenHashMap<*, *> ?: continue
                        if (map.isNotEmpty()) K2Internals.done(Step.FORGET_PACKAGE_LOOKUPS)
                        maps[i] = Object2ObjectOpenHashMap<Any, Any>()
                    }
                }
                // the tree of packages below the roots; the roots themselves stay
                val tree = K2Internals.read<Lazy<*>>(Lookup.ROOT_CACHE, index)?.takeIf { it.isInitialized() }?.value
                if (tree != null) K2Internals.write(Lookup.INNER_PACKAGE_CACHES, tree, HashMap<Any, Any>())
            } finally {
                lock.unlock()
            }
        }
    }

    /**
     * Empties the list of earlier snippets a compiled snippet's module names as its friends. Each snippet's module
     * lists all earlier ones, and the compiler walks those lists transitively for every new snippet (to make its Java
     * element finder): a walk over every kept snippet's list, which took a quarter of a late compilation in a
     * 1,000-cell session. The new snippet's own list still names every earlier one, so the walk finds the same
     * sessions, in the same order. What the list also answered, whether the snippet sees the internal declarations of another (a class of
     * it overriding an internal member of an earlier snippet's class), [SnippetFriends] answers: every snippet sees
     * those of every other. Its Java element finder, which holds the providers of every earlier session and is no
     * longer the project's (each compilation registers its own), is made again over its own session only.
     */
    @OptIn(SessionConfiguration::class)
    private fun FirModuleData.makeLeaf() {
        if (K2Internals.read<List<*>>(Lookup.FRIENDS, this).isNullOrEmpty()) return
        if (session.moduleVisibilityChecker != null) session.register(FirModuleVisibilityChecker::class, SnippetFriends)
        if (!K2Internals.write(Lookup.FRIENDS, this, emptyList<FirModuleData>())) return
        session.register(FirJavaElementFinder::class, FirJavaElementFinder(session, project))
        K2Internals.done(Step.MAKE_LEAF)
    }

    /**
     * The first kept session's instance of each of [SAME_IN_EVERY_SESSION], which later kept sessions are given
     * instead of their own.
     */
    private val sharedComponents = HashMap<KClass<out FirSessionComponent>, FirSessionComponent>()

    /**
     * Gives a kept snippet's session the first kept session's instances of the components that are the same in
     * every session ([SAME_IN_EVERY_SESSION]): each session composes them anew (a few kB in all), from the platform
     * and the compiler plugins, which are the same for every snippet.
     */
    @OptIn(SessionConfiguration::class)
    private fun FirModuleData.shareComponents() {
        for ((key, ofSession) in SAME_IN_EVERY_SESSION) {
            val own = ofSession(session)
            val shared = sharedComponents.getOrPut(key) { own }
            // the plain overload: the one for composable components would compose the two instead of replacing
            if (shared !== own && shared.javaClass == own.javaClass) {
                session.register(key, shared)
                K2Internals.done(Step.SHARE_COMPONENTS)
            }
        }
        shareBuiltinTypes()
        shareDependenciesProvider()
    }

    /** The first kept session's type references to the built-in types, which later kept sessions are given. */
    private var sharedBuiltinTypes: BuiltinTypes? = null

    /**
     * Gives a kept session the first kept session's type references to the built-in types (`Unit`, `Int`, `String`,
     * …, ~1.5 kB a session): a session makes its own set, the same in every session, and a kept session compiles
     * nothing more. Those its own declarations already refer to stay with them.
     */
    private fun FirModuleData.shareBuiltinTypes() {
        val shared = sharedBuiltinTypes ?: session.builtinTypes.also { sharedBuiltinTypes = it }
        if (session.builtinTypes === shared) return
        if (K2Internals.write(Lookup.BUILTIN_TYPES, session, shared)) K2Internals.done(Step.SHARE_BUILTIN_TYPES)
    }

    /** The distinct providers of the libraries' declarations of kept sessions (one until a library is added). */
    private val dependenciesProviders = ArrayList<FirCachingCompositeSymbolProvider>()

    /**
     * Gives a kept session the provider of its libraries' declarations of an earlier kept session over the same
     * libraries: each session composes its own over the same providers (with its own caches, ~1 kB), and a session
     * whose snippet added a library has other providers, so it keeps its own.
     */
    @OptIn(SessionConfiguration::class)
    private fun FirModuleData.shareDependenciesProvider() {
        val own = session.dependenciesSymbolProvider as? FirCachingCompositeSymbolProvider ?: return
        val shared = dependenciesProviders.firstOrNull { it.providers == own.providers }
        if (shared == null) {
            dependenciesProviders += own
        } else {
            session.register(DEPENDENCIES_SYMBOL_PROVIDER_QUALIFIED_KEY, shared)
            K2Internals.done(Step.SHARE_DEPENDENCIES_PROVIDER)
        }
    }

    /**
     * The symbol-names providers of the kept sessions' own symbol providers. A later compilation fills their caches
     * of names by package again, with the names of every snippet declared so far (the index is among their
     * providers): ~30 kB each late in a session, for every snippet asked since the last full sweep. They are emptied
     * after every snippet, which is cheap for those nothing asked: their caches were never made, or are empty.
     */
    private val keptNames = ArrayList<FirSymbolNamesProvider>()

    /** Empties the caches of names by package this provider has made and filled, without making those it has not. */
    private fun FirSymbolNamesProvider.emptyFilledLazyCaches() {
        if (this !is FirCachedSymbolNamesProvider) return
        for (value in K2Internals.fieldValues(Lookup.NAMES_PROVIDER_FIELDS, this)) {
            val lazy = value as? FirLazyValue<*> ?: continue
            val made = K2Internals.read<Lazy<*>>(Lookup.LAZY_CACHE, lazy) ?: continue
            if (!made.isInitialized()) continue
            val cache = made.value?.takeIf(FIR_CACHE::isInstance) ?: continue
            if (K2Internals.emptyCache(cache)) K2Internals.done(Step.EMPTY_NAME_CACHES)
        }
    }

    /** The REPL's rule of internal visibility, for a kept snippet's session: snippets are friends of each other. */
    private object SnippetFriends : FirModuleVisibilityChecker() {
        override fun isInFriendModule(declaration: FirMemberDeclaration): Boolean =
            declaration.moduleData.name.asString().startsWith(SNIPPET_MODULE_PREFIX)
    }

    /** Forgets the module of the snippet compiled last, named [fileName], which declared nothing. */
    fun forgetLast(fileName: String) {
        val modules = modules ?: return
        val module = modules.lastOrNull()?.takeIf { fileName in it.name.asString() } ?: return
        modules.removeAt(modules.size - 1)
        K2Internals.done(Step.FORGET_LAST)
        forgetEnhancedMembers { it === module }
    }

    /** Drops the enhanced Java members of [module] (a completion probe's, removed from the module list) from the shared cache. */
    fun forgetModule(module: FirModuleData) {
        forgetEnhancedMembers { it === module }
    }

    /** Drops from the shared cache of enhanced Java members those of classes and members of the modules [ofModule] picks. */
    private fun forgetEnhancedMembers(ofModule: (FirModuleData?) -> Boolean) {
        val byOwner = enhancedByOwner ?: return
        K2Internals.attempt(Step.FORGET_ENHANCED_MEMBERS) {
            for (symbols in byOwner.values.filterIsInstance<FirEnhancedSymbolsStorage.EnhancementSymbolsCache>()) {
                for (cache in listOf(symbols.enhancedFunctions, symbols.enhancedVariables)) {
                    val map = K2Internals.cacheEntries(cache) ?: continue
                    if (map.keys.removeIf { key -> ofModule(key.moduleData()) || ofModule(map[key].moduleData()) }) {
                        K2Internals.done(Step.FORGET_ENHANCED_MEMBERS)
                    }
                }
            }
        }
    }

    @OptIn(SymbolInternals::class)
    private fun Any?.moduleData(): FirModuleData? = ((this as? FirBasedSymbol<*>)?.fir as? FirDeclaration)?.moduleData

    /**
     * Empties every compiler cache held in a field of this component, and the caches of names by package of its
     * symbol-names provider (a copy of every class and function name of each package its snippet looked into,
     * library packages included). Its inner providers' are left alone.
     */
    private fun Any.clearCaches(): Boolean {
        var emptied = false
        for (value in K2Internals.fieldValues(Lookup.COMPONENT_FIELDS, this)) {
            if (FIR_CACHE.isInstance(value) && K2Internals.emptyCache(value)) emptied = true
            if (value is FirCachedSymbolNamesProvider && value.clearLazyCaches()) emptied = true
        }
        return emptied
    }

    private fun JavaSymbolProvider.clearJavaFacade() {
        val facade = K2Internals.read<FirJavaFacade>(Lookup.JAVA_FACADE, this) ?: return
        if (facade.clearCaches()) K2Internals.done(Step.CLEAR_JAVA_FACADE)
    }

    /**
     * The distinct sets of package names with top-level callables (one until a library is added): a kept session's
     * equal set is replaced by the one here. A set once replaced is found by identity, so each is compared once.
     */
    private val callablePackageNames = ArrayList<Set<*>>()

    private fun FirSymbolNamesProvider.shareCallablePackageNames() {
        if (this !is FirCachedSymbolNamesProvider) return
        val lazy = K2Internals.read<Lazy<*>>(Lookup.CALLABLE_PACKAGE_NAMES, this) ?: return
        if (!lazy.isInitialized()) return
        val names = lazy.value as? Set<*> ?: return
        if (callablePackageNames.any { it === names }) return
        val shared = callablePackageNames.firstOrNull { it == names }
        if (shared == null) {
            callablePackageNames += names
        } else if (K2Internals.write(Lookup.LAZY_VALUE, lazy, shared)) {
            K2Internals.done(Step.SHARE_CALLABLE_PACKAGE_NAMES)
        }
    }

    /** Empties the caches of names by package of this symbol-names provider (computing those it has not made yet). */
    private fun FirCachedSymbolNamesProvider.clearLazyCaches(): Boolean {
        var emptied = false
        for (value in K2Internals.fieldValues(Lookup.NAMES_PROVIDER_FIELDS, this)) {
            val lazy = value as? FirLazyValue<*> ?: continue
            val cache = lazy.getValue()?.takeIf(FIR_CACHE::isInstance) ?: continue
            // a cleared hash map keeps its table, ~40 tables (10 kB) a kept snippet: see K2Internals.emptyCache
            if (K2Internals.emptyCache(cache)) emptied = true
        }
        return emptied
    }

    internal companion object {
        /**
         * The components of a snippet's session whose caches only its own compilation needed (the overrides, scopes
         * and supertypes computed at its use sites), or that remember lookups whose answers stay in the providers
         * looked into (the composite symbol provider: the same symbols come back when looked up again).
         */
        val COMPILATION_CACHES: Set<Class<*>> = setOf(
            FirCachingCompositeSymbolProvider::class.java,
            FirSubstitutionOverrideStorage::class.java,
            FirIntersectionOverrideStorage::class.java,
            FirDeclaredMemberScopeProvider::class.java,
            FirCorrespondingSupertypesCache::class.java,
            FirSyntheticPropertiesStorage::class.java,
            FirMissingDependencyStorage::class.java,
        )

        /**
         * The components a kept session's instance of which is the same as every other's, with how to get it:
         * the annotation classes the compiler treats specially; the kinds of function types; the compiler plugins'
         * extensions (the REPL's own among them); the platform parts of two checkers (a kept session checks
         * nothing); the members of `dynamic`, which JVM code has none of.
         *
         * Not the index of declarations by the annotations plugins look for (FirPredicateBasedProvider), nor those
         * annotations (FirRegisteredPluginAnnotations, which that index holds anyway): a later compilation asks
         * whether an earlier snippet's declaration matches a plugin's predicate, and the provider of one session
         * hands a declaration of another session to that session's provider. Shared, it handed the question to
         * itself for ever (a StackOverflowError in FirPredicateBasedProviderImpl.matches at any use of an earlier
         * snippet's class, with any compiler plugin on), and its index held the first kept session's declarations only.
         */
        private val SAME_IN_EVERY_SESSION: List<Pair<KClass<out FirSessionComponent>, (FirSession) -> FirSessionComponent>> = listOf(
            FirAnnotationsPlatformSpecificSupportComponent::class to { it.annotationPlatformSupport },
            FirFunctionTypeKindService::class to { it.functionTypeService },
            FirExtensionService::class to { it.extensionService },
            FirInlineCheckerPlatformSpecificComponent::class to { it.inlineCheckerExtension },
            FirPrimaryConstructorSuperTypeCheckerPlatformComponent::class to { it.primaryConstructorSuperTypePlatformSupport },
            FirDynamicMembersStorage::class to { it.dynamicMembersStorage },
        )

        private val FIR_CACHE: Class<*> = FirCache::class.java

        /** How the K2 REPL's names of snippet modules begin (`<REPL-snippet-snippet3.kts>`; not `<REPL-base>`). */
        const val SNIPPET_MODULE_PREFIX = "<REPL-snippet-"

        /** Every how many snippets the caches of all kept sessions are emptied, not only the newest one's. */
        const val FULL_SWEEP_EVERY = 64
    }
}
