package org.kotlinllm.script.internal.compiler

import io.github.oshai.kotlinlogging.KotlinLogging
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
import org.jetbrains.kotlin.fir.extensions.FirPredicateBasedProvider
import org.jetbrains.kotlin.fir.extensions.FirRegisteredPluginAnnotations
import org.jetbrains.kotlin.fir.extensions.extensionService
import org.jetbrains.kotlin.fir.extensions.predicateBasedProvider
import org.jetbrains.kotlin.fir.extensions.registeredPluginAnnotations
import org.jetbrains.kotlin.fir.java.FirJavaElementFinder
import org.jetbrains.kotlin.fir.java.FirJavaFacade
import org.jetbrains.kotlin.fir.java.FirSyntheticPropertiesStorage
import org.jetbrains.kotlin.fir.java.JavaSymbolProvider
import org.jetbrains.kotlin.fir.java.enhancement.FirEnhancedSymbolsStorage
import org.jetbrains.kotlin.fir.moduleVisibilityChecker
import org.jetbrains.kotlin.fir.resolve.providers.DEPENDENCIES_SYMBOL_PROVIDER_QUALIFIED_KEY
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
import java.lang.reflect.Field
import java.lang.reflect.Modifier
import kotlin.reflect.KClass
import kotlin.script.experimental.host.ScriptingHostConfiguration

private val logger = KotlinLogging.logger {}

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
 * The module list and the caches are internal to the compiler and reached by reflection; if they cannot be, nothing
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

    /** The one provider of the kept snippets' declarations (see [SnippetSymbolIndex]). */
    private var index: SnippetSymbolIndex? = null

    /** How many times [trimKept] ran, and the snippet modules it has seen (indexed, trimmed once, made a leaf). */
    private var trims = 0
    private val known = HashSet<FirModuleData>()

    /** The compiler's project, over which a kept snippet's Java element finder is made again (see [makeLeaf]). */
    private val project = state.project

    /** What a kept snippet's session checks: nothing, as no later compilation checks its code. */
    private val noCheckers = CheckersComponent()

    /** Reflection is done once per class: [trimKept] walks kept snippets' sessions after each snippet. */
    private val fieldsByClass = HashMap<Class<*>, List<Field>>()

    /** The shared cache of enhanced Java members, by owner class (its entries are made as classes are enhanced). */
    private val enhancedByOwner: Map<*, *>? = internal("the enhanced Java members") {
        val context = K2ReplCompilationState::class.java.methods
            .first { it.name.startsWith("getSessionFactoryContext") && it.parameterCount == 0 }
            .invoke(state) as FirJvmSessionFactory.Context
        context.predefinedJavaComponents.enhancementStorage.cacheByOwner.backingMap()
    }

    /**
     * The compiler's two caches of each snippet's refined script configuration, by file name: the CLI provider's
     * and the host configuration's. A configuration is read while its own snippet compiles only, and each entry
     * holds the snippet's source file with its document (a few kB), declaring or not.
     */
    private val configurations: List<MutableMap<*, *>> = listOfNotNull(
        internal("the script configurations") {
            val provider = internalOfState("getScriptConfigurationsProvider")
            provider?.instanceFields()?.firstOrNull { it.name == "cache" }?.get(provider) as? MutableMap<*, *>
        },
        internal("the refined script configurations") {
            val host = internalOfState("getHostConfiguration") as? ScriptingHostConfiguration
            val cache = host?.get(ScriptingHostConfiguration.scriptRefinedCompilationConfigurationsCache)
            cache?.instanceFields()?.firstOrNull { it.name == "refinedCache" }?.get(cache) as? MutableMap<*, *>
        },
    )

    /** Forgets the refined configurations of the snippets compiled so far (see [configurations]). */
    fun forgetConfigurations() {
        internal("the script configurations") { configurations.forEach { it.clear() } }
    }

    private fun internalOfState(getter: String): Any? =
        K2ReplCompilationState::class.java.methods.first { it.name.startsWith(getter) && it.parameterCount == 0 }.invoke(state)

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
        internal("the snippet sessions' symbol providers") { index = SnippetSymbolIndex.update(index, fresh) }
        internal("the snippet modules' dependencies") { fresh.forEach { it.makeLeaf() } }
        internal("the components of the snippet sessions") { fresh.forEach { it.shareComponents() } }
        internal("the names of the snippet sessions' providers") {
            fresh.mapNotNullTo(keptNames) { (it.session.symbolProvider as? FirCachingCompositeSymbolProvider)?.symbolNamesProvider }
            keptNames.forEach { it.emptyFilledLazyCaches() }
        }
        val sweep = ++trims % FULL_SWEEP_EVERY == 0
        internal("the caches of the snippet sessions") {
            for (module in if (sweep) snippetModules else fresh) {
                module.session.register(CheckersComponent::class, noCheckers)
                for (component in module.session) {
                    if (component.javaClass in COMPILATION_CACHES) component.clearCaches()
                    // a snippet has no Java sources: its Java provider only remembers the packages it was asked for
                    if (component is JavaSymbolProvider) component.javaFacade()?.clearCaches()
                    if (component is FirCachingCompositeSymbolProvider) component.symbolNamesProvider.shareCallablePackageNames()
                }
            }
        }
        val kept = snippetModules.toHashSet()
        forgetEnhancedMembers { it in kept }
        if (sweep) internal("the classpath's package index") { forgetPackageLookups() }
    }

    /**
     * Empties the project's index of the classpath's packages by root: it remembers every package name it was asked
     * for, in each root (71 for the libraries), the answer "none" too, and the compiler asks for each new name a
     * snippet uses as a possible package (`a12`, `f12`): ~1 kB a declaring snippet, for the whole session. A lookup
     * after this reads the roots' directories again.
     */
    private fun forgetPackageLookups() {
        val manager = project.getService(JavaFileManager::class.java) as? KotlinCliJavaFileManagerImpl ?: return
        val compound =
            manager.instanceFields().firstOrNull { it.name == "index" }?.get(manager) as? JvmDependenciesDynamicCompoundIndex ?: return
        val indices = compound.instanceFields().firstOrNull { it.name == "indices" }?.get(compound) as? List<*> ?: return
        for (index in indices.filterIsInstance<JvmDependenciesIndexBase>()) {
            val fields = index.instanceFields()
            val lock = fields.firstOrNull { it.name == "lock" }?.get(index) as? java.util.concurrent.locks.Lock ?: continue
            lock.lock()
            try {
                val byRoot = (fields.firstOrNull { it.name == PACKAGE_CACHE }?.get(index) as? Lazy<*>)?.takeIf { it.isInitialized() }
                @Suppress("UNCHECKED_CAST")
                (byRoot?.value as? Array<Any?>)?.let { maps ->
                    // a new map each: a cleared one keeps its arrays
                    for (i in maps.indices) if (maps[i] is Object2ObjectOpenHashMap<*, *>) maps[i] = Object2ObjectOpenHashMap<Any, Any>()
                }
                // the tree of packages below the roots; the roots themselves stay
                val tree = (fields.firstOrNull { it.name == ROOT_CACHE }?.get(index) as? Lazy<*>)?.takeIf { it.isInitialized() }?.value
                tree?.instanceFields()?.firstOrNull { it.name == "innerPackageCaches" }?.set(tree, HashMap<Any, Any>())
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
        val friends = instanceFields().firstOrNull { it.name == FRIENDS } ?: return
        if ((friends.get(this) as? List<*>).isNullOrEmpty()) return
        if (session.moduleVisibilityChecker != null) session.register(FirModuleVisibilityChecker::class, SnippetFriends)
        friends.set(this, emptyList<FirModuleData>())
        session.register(FirJavaElementFinder::class, FirJavaElementFinder(session, project))
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
            if (shared !== own && shared.javaClass == own.javaClass) session.register(key, shared)
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
        session.instanceFields().firstOrNull {
            it.name == BUILTIN_TYPES && it.declaringClass == FirSession::class.java
        }?.set(session, shared)
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
        for (field in instanceFields()) {
            val lazy = field.get(this) as? FirLazyValue<*> ?: continue
            val made = lazy.instanceFields().firstNotNullOfOrNull { it.get(lazy) as? Lazy<*> } ?: continue
            if (!made.isInitialized()) continue
            val cache = made.value?.takeIf(FIR_CACHE::isInstance) ?: continue
            if ((cache.backingMap()?.isEmpty()) == false) cache.empty()
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
        forgetEnhancedMembers { it === module }
    }

    /** Drops the enhanced Java members of [module] (a completion probe's, removed from the module list) from the shared cache. */
    fun forgetModule(module: FirModuleData) {
        forgetEnhancedMembers { it === module }
    }

    /** Drops from the shared cache of enhanced Java members those of classes and members of the modules [ofModule] picks. */
    private fun forgetEnhancedMembers(ofModule: (FirModuleData?) -> Boolean) {
        val byOwner = enhancedByOwner ?: return
        internal("the enhanced Java members") {
            for (symbols in byOwner.values.filterIsInstance<FirEnhancedSymbolsStorage.EnhancementSymbolsCache>()) {
                for (map in listOfNotNull(symbols.enhancedFunctions.backingMap(), symbols.enhancedVariables.backingMap())) {
                    map.keys.removeIf { key -> ofModule(key.moduleData()) || ofModule(map[key].moduleData()) }
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
    private fun Any.clearCaches() {
        for (field in instanceFields()) {
            val value = field.get(this) ?: continue
            if (FIR_CACHE.isInstance(value)) value.empty()
            if (value is FirSymbolNamesProvider) value.clearLazyCaches()
        }
    }

    private fun JavaSymbolProvider.javaFacade(): FirJavaFacade? =
        instanceFields().firstOrNull { it.name == "javaFacade" }?.get(this) as? FirJavaFacade

    /**
     * The distinct sets of package names with top-level callables (one until a library is added): a kept session's
     * equal set is replaced by the one here. A set once replaced is found by identity, so each is compared once.
     */
    private val callablePackageNames = ArrayList<Set<*>>()

    private fun FirSymbolNamesProvider.shareCallablePackageNames() {
        val lazy = instanceFields().firstOrNull { it.name == CALLABLE_PACKAGE_NAMES }?.get(this) as? Lazy<*> ?: return
        if (!lazy.isInitialized()) return
        val names = lazy.value as? Set<*> ?: return
        if (callablePackageNames.any { it === names }) return
        val shared = callablePackageNames.firstOrNull { it == names }
        if (shared == null) {
            callablePackageNames += names
        } else {
            lazy.instanceFields().firstOrNull { it.name == "_value" }?.set(lazy, shared)
        }
    }

    private fun Any.clearLazyCaches() {
        for (field in instanceFields()) {
            val lazy = field.get(this) as? FirLazyValue<*> ?: continue
            lazy.getValue()?.takeIf(FIR_CACHE::isInstance)?.empty()
        }
    }

    /** The object fields of this object's class and its superclasses, made accessible once per class. */
    private fun Any.instanceFields(): List<Field> = fieldsByClass.getOrPut(javaClass) {
        generateSequence<Class<*>>(javaClass) { it.superclass }
            .flatMap { it.declaredFields.asSequence() }
            .filterNot { Modifier.isStatic(it.modifiers) || it.type.isPrimitive }
            .onEach { it.isAccessible = true }
            .toList()
    }

    /**
     * Empties this compiler cache. A cleared hash map keeps its table, sized for what the cache held (~40 tables a
     * kept snippet, 10 kB): the usual map is replaced by a new one, which has no table until it is written to.
     */
    private fun Any.empty() {
        val field = mapField() ?: return
        val map = field.get(this) as? MutableMap<*, *> ?: return
        if (map.javaClass == HashMap::class.java && map.isNotEmpty()) field.set(this, HashMap<Any, Any>()) else map.clear()
    }

    private fun Any.mapField(): Field? = instanceFields().firstOrNull { it.name == "map" }

    private fun Any.backingMap(): MutableMap<*, *>? = mapField()?.get(this) as? MutableMap<*, *>

    private fun <T> internal(what: String, reach: () -> T): T? = try {
        reach()
    } catch (e: Exception) {
        logger.warn(e) { "$what of the compiler cannot be reached: the memory it holds stays" }
        null
    }

    private companion object {
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
         * extensions (the REPL's own among them), the index of declarations by the annotations they look for, and
         * those annotations (a compilation asks them in the session it compiles, never in a kept one); the platform
         * parts of two checkers (a kept session checks nothing); the members of `dynamic`, which JVM code has none of.
         */
        val SAME_IN_EVERY_SESSION: List<Pair<KClass<out FirSessionComponent>, (FirSession) -> FirSessionComponent>> = listOf(
            FirAnnotationsPlatformSpecificSupportComponent::class to { it.annotationPlatformSupport },
            FirFunctionTypeKindService::class to { it.functionTypeService },
            FirExtensionService::class to { it.extensionService },
            FirPredicateBasedProvider::class to { it.predicateBasedProvider },
            FirRegisteredPluginAnnotations::class to { it.registeredPluginAnnotations },
            FirInlineCheckerPlatformSpecificComponent::class to { it.inlineCheckerExtension },
            FirPrimaryConstructorSuperTypeCheckerPlatformComponent::class to { it.primaryConstructorSuperTypePlatformSupport },
            FirDynamicMembersStorage::class to { it.dynamicMembersStorage },
        )

        /** The lazy field of the compiler's cached symbol-names providers holding the package names with top-level callables. */
        const val CALLABLE_PACKAGE_NAMES = "topLevelCallablePackageNames\$delegate"
        val FIR_CACHE: Class<*> = FirCache::class.java

        /** How the K2 REPL's names of snippet modules begin (`<REPL-snippet-snippet3.kts>`; not `<REPL-base>`). */
        const val SNIPPET_MODULE_PREFIX = "<REPL-snippet-"

        /** The field of a snippet's module data listing the earlier snippets' modules (see [makeLeaf]). */
        const val FRIENDS = "friendDependencies"

        /** The field of a session with its type references to the built-in types (see [shareBuiltinTypes]). */
        const val BUILTIN_TYPES = "builtinTypes"

        /** The lazy fields of the classpath's index with its package lookups by root, and their tree (see [forgetPackageLookups]). */
        const val PACKAGE_CACHE = "packageCache\$delegate"
        const val ROOT_CACHE = "rootCache\$delegate"

        /** Every how many snippets the caches of all kept sessions are emptied, not only the newest one's. */
        const val FULL_SWEEP_EVERY = 64
    }
}
