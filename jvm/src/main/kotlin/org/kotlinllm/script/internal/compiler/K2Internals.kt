package org.kotlinllm.script.internal.compiler

import io.github.oshai.kotlinlogging.KotlinLogging
import java.lang.ref.Reference
import java.lang.reflect.Field
import java.lang.reflect.Method
import java.lang.reflect.Modifier
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicReference
import java.util.concurrent.atomic.AtomicReferenceArray

private val logger = KotlinLogging.logger {}

/**
 * The one door into the K2 compiler's internals: the only code of the engine that reaches the compiler's classes
 * and objects by reflection, for [CompilerMemory] and [CompletionProbe]. Each member it reaches by name is a
 * [Lookup], declared once with why it is needed, and what the engine does with them is a [Step].
 *
 * A process-wide record says whether each lookup resolved and each step did its work ([reached], [ran]), so that a
 * Kotlin upgrade renaming a member fails K2InternalsTest instead of silently stopping a memory trim or the
 * completion. In a user's session a miss changes nothing but what the member served (memory stays, completion falls
 * back to names): it is logged once, as a warning, like a step that failed.
 *
 * Thread-safe: every session compiles on a thread of its own.
 */
internal object K2Internals {

    /**
     * A member of the compiler reached by name: the class that declares it ([owner], as the compiler names it), the
     * [member] (a field, or a method without parameters for a getter), and [why] the engine needs it. A field is
     * looked for in the runtime class of the object and its superclasses (the compiler's implementations vary);
     * [declaredBy], when set, is the one class whose field it must be.
     */
    internal enum class Lookup(val owner: String, val member: String, val why: String, val declaredBy: String? = null) {
        MODULE_DATA_PROVIDER(
            REPL_STATE,
            "getModuleDataProvider",
            "the list of snippet modules, which CompilerMemory shortens and the completion probe adds its own module to",
        ),
        SESSION_FACTORY_CONTEXT(
            REPL_STATE,
            "getSessionFactoryContext",
            "the shared cache of enhanced Java members, and what the completion probe makes its session with",
        ),
        SCRIPT_CONFIGURATIONS_PROVIDER(REPL_STATE, "getScriptConfigurationsProvider", "its cache of the snippets' refined configurations"),
        HOST_CONFIGURATION(
            REPL_STATE,
            "getHostConfiguration",
            "the refinement cache, and the completion probe's script compilation component",
        ),
        COMPILER_CONTEXT(REPL_STATE, "getCompilerContext", "the compiler's environment, whose configuration the completion probe copies"),
        CONFIGURATIONS_CACHE(
            "CliScriptConfigurationsProvider",
            "cache",
            "each compiled snippet's refined configuration, with its source file",
        ),
        REFINED_CACHE(
            "ScriptRefinedCompilationConfigurationCacheImpl",
            "refinedCache",
            "the host's copy of each compiled snippet's refined configuration",
        ),
        CLASSPATH_INDEX("KotlinCliJavaFileManagerImpl", "index", "the index of the classpath's packages"),
        INDICES("JvmDependenciesDynamicCompoundIndex", "indices", "the indices of the classpath's roots"),
        INDEX_LOCK("JvmDependenciesIndexBase", "lock", "what guards an index's caches"),
        PACKAGE_CACHE("JvmDependenciesIndexBase", "packageCache\$delegate", "an index's lookups of package names by root, the misses too"),
        ROOT_CACHE("JvmDependenciesIndexBase", "rootCache\$delegate", "the tree of packages an index found below its roots"),
        INNER_PACKAGE_CACHES("JvmDependenciesIndexBase.Cache", "innerPackageCaches", "the packages below a node of that tree"),
        FRIENDS("FirSourceModuleData", "friendDependencies", "a snippet module's list of every earlier snippet's module"),
        BUILTIN_TYPES(
            "FirSession",
            "builtinTypes",
            "a session's type references to the built-in types",
            "org.jetbrains.kotlin.fir.FirSession",
        ),
        JAVA_FACADE("JavaSymbolProvider", "javaFacade", "the Java packages a snippet's session was asked for"),
        CALLABLE_PACKAGE_NAMES(
            "FirCachedSymbolNamesProvider",
            "topLevelCallablePackageNames\$delegate",
            "the package names with top-level callables, the same set in every kept session",
        ),
        LAZY_VALUE("kotlin.SynchronizedLazyImpl", "_value", "where a lazy keeps its value, to share an equal one"),
        LAZY_CACHE("FirThreadUnsafeValue", "lazyValue\$delegate", "the lazy under a FirLazyValue, read without computing it"),
        CACHE_MAP("FirThreadUnsafeCache", "map", "the entries of a compiler cache"),
        COMPONENT_FIELDS(
            "a kept session's component of CompilerMemory.COMPILATION_CACHES, or its Java facade",
            "its fields",
            "the caches it holds",
        ),
        NAMES_PROVIDER_FIELDS("FirCachedSymbolNamesProvider", "its fields", "its lazy caches of names by package"),
    }

    /** What the engine does with the compiler's internals; each is recorded as done when it changed something. */
    internal enum class Step(val what: String) {
        FORGET_CONFIGURATIONS("the refined configuration of a compiled snippet is forgotten"),
        FORGET_LAST("the module of a snippet that declared nothing leaves the module list"),
        FORGET_ENHANCED_MEMBERS("the enhanced Java members of dropped and kept snippet modules leave the shared cache"),
        INDEX_KEPT("a kept snippet's declarations join the one index of kept snippets"),
        MAKE_LEAF("a kept snippet's module no longer lists the earlier ones"),
        SHARE_COMPONENTS("a kept session gets the components that are the same in every session"),
        SHARE_BUILTIN_TYPES("a kept session gets the first kept session's type references to the built-in types"),
        SHARE_DEPENDENCIES_PROVIDER("a kept session gets an earlier one's provider of the libraries' declarations"),
        EMPTY_NAME_CACHES("the kept sessions' caches of names by package, filled again by later compilations, are emptied"),
        CLEAR_CACHES("a kept session's compilation caches are emptied"),
        CLEAR_JAVA_FACADE("a kept session's Java facade forgets the packages it was asked for"),
        SHARE_CALLABLE_PACKAGE_NAMES("a kept session's set of package names with top-level callables is an earlier one's"),
        FORGET_PACKAGE_LOOKUPS("the classpath index forgets its lookups of packages, with every full sweep"),
        PROBE("a completion probe resolves a text as the next snippet"),
        FORGET_PROBE("a completion probe's module leaves the module list"),
    }

    private class LookupRecord {
        @Volatile var resolved = false
        val missed = AtomicBoolean()
    }

    private class StepRecord {
        @Volatile var done = false
        val failed = AtomicBoolean()
    }

    private val lookups: Map<Lookup, LookupRecord> = Lookup.entries.associateWith { LookupRecord() }
    private val steps: Map<Step, StepRecord> = Step.entries.associateWith { StepRecord() }

    /** What each lookup found in each class: a [Field], a [Method], or [NOT_FOUND]. */
    private val members = ConcurrentHashMap<Pair<Lookup, Class<*>>, Any>()

    /** The instance reference fields of each class and its superclasses, or [NOT_FOUND] when one cannot be made accessible. */
    private val fieldsByClass = ConcurrentHashMap<Class<*>, Any>()
    private val NOT_FOUND = Any()

    /** Each lookup by name: whether it resolved, and never missed, since the process started (false if never looked up). */
    fun reached(): Map<String, Boolean> = lookups.entries.associate { (lookup, record) ->
        val reached = record.resolved && !record.missed.get()
        lookup.name to reached
    }

    /** Each step by name: whether it did its work at least once and never failed, since the process started. */
    fun ran(): Map<String, Boolean> = steps.entries.associate { (step, record) ->
        val ran = record.done && !record.failed.get()
        step.name to ran
    }

    /**
     * Runs [block], a go of [step]; an exception (the compiler's objects are not what the engine was built against)
     * is recorded, logged once, and gives null: the step is skipped and the session goes on.
     */
    fun <T> attempt(step: Step, block: () -> T): T? = try {
        block()
    } catch (e: Exception) {
        failed(step, e)
        null
    } catch (e: LinkageError) {
        failed(step, e)
        null
    }

    /** Records that [step] changed something. */
    fun done(step: Step) {
        val record = steps.getValue(step)
        if (!record.done) record.done = true
    }

    private fun failed(step: Step, error: Throwable) {
        if (steps.getValue(step).failed.compareAndSet(false, true)) {
            logger.warn(error) { "the K2 compiler's internals failed where ${step.what}: that step is skipped, the session goes on" }
        }
    }

    /** The value of the field [lookup] names in [receiver]; null when it is missing or not a [T]. */
    inline fun <reified T : Any> read(lookup: Lookup, receiver: Any): T? = typed(lookup, readField(lookup, receiver))

    /** What the method [lookup] names returns for [receiver]; null when it is missing or not a [T]. */
    inline fun <reified T : Any> call(lookup: Lookup, receiver: Any): T? = typed(lookup, callMethod(lookup, receiver))

    @PublishedApi
    internal inline fun <reified T : Any> typed(lookup: Lookup, value: Any?): T? {
        if (value == null || value is T) return value
        miss(lookup, "is a ${value.javaClass.name}, not a ${T::class.java.name}")
        return null
    }

    /** Sets the field [lookup] names in [receiver] to [value]; false when it is missing. */
    fun write(lookup: Lookup, receiver: Any, value: Any?): Boolean {
        val field = field(lookup, receiver.javaClass) ?: return false
        return guarded(lookup, "cannot be set", false) {
            field.set(receiver, value)
            true
        }
    }

    @PublishedApi
    internal fun readField(lookup: Lookup, receiver: Any): Any? {
        val field = field(lookup, receiver.javaClass) ?: return null
        return guarded(lookup, "cannot be read", null) { field.get(receiver) }
    }

    @PublishedApi
    internal fun callMethod(lookup: Lookup, receiver: Any): Any? {
        val method = method(lookup, receiver.javaClass) ?: return null
        return guarded(lookup, "cannot be called", null) { method.invoke(receiver) }
    }

    /** [action] on a member [lookup] found; a reflective failure of it is a miss of [lookup], and gives [fallback]. */
    private inline fun <T> guarded(lookup: Lookup, failure: String, fallback: T, action: () -> T): T =
        try {
            action()
        } catch (e: ReflectiveOperationException) {
            miss(lookup, "$failure: $e")
            fallback
        } catch (e: RuntimeException) {
            miss(lookup, "$failure: $e")
            fallback
        }

    /** The values of [receiver]'s instance reference fields (its class's and its superclasses'), walked for [lookup]. */
    fun fieldValues(lookup: Lookup, receiver: Any): List<Any> {
        val fields = instanceFields(receiver.javaClass)
        if (fields == null) {
            miss(lookup, "has fields in ${receiver.javaClass.name} that cannot be made accessible")
            return emptyList()
        }
        resolved(lookup)
        return fields.mapNotNull { it.get(receiver) }
    }

    /** The entries of a compiler cache (a `FirCache`); null when they cannot be reached. */
    fun cacheEntries(cache: Any): MutableMap<*, *>? = read<MutableMap<*, *>>(Lookup.CACHE_MAP, cache)

    /**
     * Empties a compiler cache; true when it held entries. A cleared hash map keeps its table, sized for what the
     * cache held: the usual map is replaced by a new one, which has no table until it is written to.
     */
    fun emptyCache(cache: Any): Boolean {
        val map = cacheEntries(cache) ?: return false
        val held = map.isNotEmpty()
        if (map.javaClass == HashMap::class.java && held) write(Lookup.CACHE_MAP, cache, HashMap<Any, Any>()) else map.clear()
        return held
    }

    /**
     * The objects [node] strongly refers to, for checks of what the compiler retains (K2InternalsTest walks them):
     * the values of its fields; for the JDK's classes, whose modules are closed to reflection, the elements of
     * collections, maps and arrays. The referent of a weak or soft reference is not among them (the compiler's caches
     * of types hold sessions weakly), nor what classes, class loaders and threads refer to: they are not what a
     * session keeps of a snippet.
     */
    fun referents(node: Any): List<Any> {
        val type = node.javaClass
        if (node is Class<*> || node is ClassLoader || node is Thread) return emptyList()
        if (type.isArray) return if (type.componentType.isPrimitive) emptyList() else (node as Array<*>).filterNotNull()
        if (node is Reference<*>) {
            // only what a subclass adds (a cache's entry may hold its value strongly)
            val own = generateSequence(type) { it.superclass }.takeWhile { !it.name.startsWith("java.") }
            val fields = own.flatMap { it.declaredFields.asSequence() }.filter { !Modifier.isStatic(it.modifiers) && !it.type.isPrimitive }
            return fields.filter { it.trySetAccessible() }.mapNotNull { it.get(node) }.toList()
        }
        instanceFields(type)?.let { fields -> return fields.mapNotNull { it.get(node) } }
        return try {
            when (node) {
                is Map<*, *> -> node.entries.flatMap { listOfNotNull(it.key, it.value) }
                is Collection<*> -> node.filterNotNull()
                is AtomicReference<*> -> listOfNotNull(node.get())
                is AtomicReferenceArray<*> -> (0 until node.length()).mapNotNull { node.get(it) }
                else -> emptyList()
            }
        } catch (_: RuntimeException) {
            // a collection changed by another thread meanwhile: its elements are left out
            emptyList()
        }
    }

    private fun field(lookup: Lookup, type: Class<*>): Field? {
        val found = members.computeIfAbsent(lookup to type) {
            generateSequence(type) { it.superclass }
                .filter { lookup.declaredBy == null || it.name == lookup.declaredBy }
                .flatMap { it.declaredFields.asSequence() }
                .firstOrNull { it.name == lookup.member && !Modifier.isStatic(it.modifiers) && it.trySetAccessible() }
                ?: NOT_FOUND
        }
        return (found as? Field).also { if (it == null) miss(lookup, "is not a field of ${type.name}") else resolved(lookup) }
    }

    /** A getter of an internal property has its module's name in its JVM name (`getX$module`). */
    private fun method(lookup: Lookup, type: Class<*>): Method? {
        val found = members.computeIfAbsent(lookup to type) {
            type.methods.firstOrNull { (it.name == lookup.member || it.name.startsWith(lookup.member + "$")) && it.parameterCount == 0 }
                ?: NOT_FOUND
        }
        return (found as? Method).also { if (it == null) miss(lookup, "is not a method of ${type.name}") else resolved(lookup) }
    }

    @Suppress("UNCHECKED_CAST")
    private fun instanceFields(type: Class<*>): List<Field>? = fieldsByClass.computeIfAbsent(type) {
        val fields = generateSequence(type) { it.superclass }
            .flatMap { it.declaredFields.asSequence() }
            .filter { !Modifier.isStatic(it.modifiers) && !it.type.isPrimitive }
            .toList()
        if (fields.all { it.trySetAccessible() }) fields else NOT_FOUND
    } as? List<Field>

    private fun resolved(lookup: Lookup) {
        val record = lookups.getValue(lookup)
        if (!record.resolved) record.resolved = true
    }

    @PublishedApi
    internal fun miss(lookup: Lookup, how: String) {
        if (lookups.getValue(lookup).missed.compareAndSet(false, true)) {
            logger.warn { "the K2 compiler's ${lookup.owner}.${lookup.member} $how; what it serves is skipped: ${lookup.why}" }
        }
    }
}

private const val REPL_STATE = "K2ReplCompilationState"
