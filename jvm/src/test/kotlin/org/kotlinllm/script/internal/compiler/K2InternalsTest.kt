package org.kotlinllm.script.internal.compiler

import kotlinx.coroutines.runBlocking
import org.jetbrains.kotlin.cli.jvm.compiler.KotlinCliJavaFileManagerImpl
import org.jetbrains.kotlin.cli.jvm.index.JvmDependenciesDynamicCompoundIndex
import org.jetbrains.kotlin.cli.jvm.index.JvmDependenciesIndexBase
import org.jetbrains.kotlin.com.intellij.psi.impl.file.impl.JavaFileManager
import org.jetbrains.kotlin.fir.FirModuleData
import org.jetbrains.kotlin.fir.caches.FirCache
import org.jetbrains.kotlin.fir.java.enhancement.FirEnhancedSymbolsStorage
import org.jetbrains.kotlin.fir.session.FirJvmSessionFactory
import org.jetbrains.kotlin.fir.symbols.FirBasedSymbol
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.scripting.compiler.plugin.definitions.scriptRefinedCompilationConfigurationsCache
import org.jetbrains.kotlin.scripting.compiler.plugin.impl.ReplModuleDataProvider
import org.jetbrains.kotlin.scripting.definitions.ScriptConfigurationsProvider
import org.junit.jupiter.api.Test
import org.kotlinllm.script.REFLECTIVE_CALLS
import org.kotlinllm.script.ScriptSession
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.internal.compiler.K2Internals.Lookup
import org.kotlinllm.script.linesMatching
import java.io.File
import java.util.Collections
import java.util.IdentityHashMap
import kotlin.script.experimental.host.ScriptingHostConfiguration
import kotlin.script.experimental.host.toScriptSource
import kotlin.test.assertEquals
import kotlin.test.assertIs
import kotlin.test.assertNotNull
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * The engine's one door into the K2 compiler's internals ([K2Internals]): on the compiler the engine is built
 * with, every member it looks up resolves and every step it takes does its work, and what the memory trims leave of
 * the snippets is empty or no longer reachable.
 */
class K2InternalsTest {

    @Test
    fun `every lookup resolves and every step does its work`() = runBlocking {
        ScriptSession().use { session ->
            session.execute("val xs = listOf(1, 2, 3)\nval f = java.io.File(\"x\")").assertValue()
            session.execute("open class Names : java.util.ArrayList<String>() { fun firstOrEmpty() = if (isEmpty()) \"\" else get(0) }")
                .assertValue()
            // declares nothing: forgotten at once
            assertEquals(4, session.execute("f.name.length + xs.size").assertValue().value)
            for (code in listOf("xs.ma", "f.", "Names().fi")) session.complete(code, code.length)
            session.inspect("xs.first()", 4)
            // enough declaring snippets for a full sweep of the kept sessions and of the classpath's package lookups
            repeat(CompilerMemory.FULL_SWEEP_EVERY) {
                session.execute("fun g$it(): String = f.name + xs.size + Names().firstOrEmpty() + $it").assertValue()
            }
            assertEquals("x30", session.execute("g0()").assertValue().value)
        }
        assertEquals(emptyList(), K2Internals.reached().filterValues { !it }.keys.toList(), "lookups that did not resolve")
        assertEquals(emptyList(), K2Internals.ran().filterValues { !it }.keys.toList(), "steps that did not do their work")
    }

    @Test
    fun `what the trims leave of the snippets is emptied, and a dropped snippet is unreachable`() {
        ReplCompilerHost(javaClass.classLoader).use { host ->
            val state = host.compilationState
            val modules = assertNotNull(K2Internals.call<ReplModuleDataProvider>(Lookup.MODULE_DATA_PROVIDER, state)).moduleDataHistory
            var number = 0
            fun run(code: String, declares: Boolean = true): FirModuleData {
                val compiled = assertIs<Compilation.Compiled>(host.compile(code.toScriptSource("snippet${++number}.kts")))
                val module = modules.last()
                assertTrue(host.evaluate(compiled, declares) !is Evaluation.Broken, code)
                return module
            }
            val first = run("val keep1 = java.io.File(\"a\")")
            val dropped = run("keep1.name.length", declares = false)
            assertTrue(modules.none { it === dropped }, "the module of a snippet that declared nothing left the module list")
            val names = run("open class Names : java.util.ArrayList<String>() { fun firstOrEmpty() = if (isEmpty()) \"\" else get(0) }")
            val newest = run("fun usesKeep() = keep1.path + Names().firstOrEmpty()")
            val kept = listOf(first, names, newest)

            val configurations = configurationCaches(host)
            assertEquals(2, configurations.size, "the two caches of refined configurations")
            assertTrue(configurations.all { it.isEmpty() }, "no refined configuration stays after its snippet")
            for (module in kept) {
                assertEquals(emptyList<Any?>(), K2Internals.read<List<*>>(Lookup.FRIENDS, module), "${module.name} is a leaf")
                assertSame(first.session.builtinTypes, module.session.builtinTypes, "${module.name} shares the built-in types")
            }
            assertEquals(emptyList(), filledCaches(newest), "the compilation caches of the snippet kept last")
            assertEquals(emptyList(), snippetEnhancedMembers(host), "enhanced Java members of snippet modules")

            // what holds the snippets' sessions: the module list (with every kept session), the shared cache of
            // enhanced Java members, the caches of refined configurations
            val roots = listOf(modules, enhancedMembers(host), configurations)
            val reachedKept = walk(roots) { it === names }
            assertTrue(reachedKept.found, "the walk finds a kept snippet's module (${reachedKept.visited} objects)")
            val reachedDropped = walk(roots) { it === dropped || it === dropped.session }
            assertTrue(reachedDropped.complete, "the walk ended within its budget (${reachedDropped.visited} objects)")
            assertTrue(
                !reachedDropped.found,
                "the dropped snippet's module or session is reachable: ${reachedDropped.path.joinToString(" -> ")}",
            )

            // a full sweep: every kept session's caches, and the classpath index's lookups of packages
            while (number < CompilerMemory.FULL_SWEEP_EVERY) run("fun g$number(): String = keep1.name + $number")
            for (module in modules.filter { it.name.asString().startsWith(CompilerMemory.SNIPPET_MODULE_PREFIX) }) {
                assertEquals(emptyList(), filledCaches(module), "the compilation caches of ${module.name} after a full sweep")
            }
            assertEquals(emptyList(), packageLookups(host), "the classpath index's lookups of packages after a full sweep")
            assertTrue(host.probe("keep1.na", 2_000) { true } == true, "a probe still resolves")
        }
    }

    @Test
    fun `no engine code but the door reflects on the compiler`() {
        // surefire sets basedir; the working directory is the same
        val sources = File(System.getProperty("basedir") ?: ".", "src/main/kotlin")
        val compilerPackage = File(sources, "org/kotlinllm/script/internal/compiler")
        // the code of the compiler package, and any other that uses the compiler's classes; reflection on the
        // snippets' classes (vars(), value classes) is elsewhere and stays
        val files = sources.walkTopDown()
            .filter { it.isFile && it.extension == "kt" && it.name != "K2Internals.kt" }
            .filter { it.startsWith(compilerPackage) || it.readText().contains("\nimport org.jetbrains.kotlin.") }
            .toList()
        assertTrue(files.count { it.startsWith(compilerPackage) } > 10, "the compiler package's sources are found in $compilerPackage")
        val uses = linesMatching(files, REFLECTIVE_CALLS + Regex("""java\.lang\.reflect"""))
        assertEquals(emptyList(), uses, "reflection outside K2Internals.kt")
    }

    /** The non-empty compiler caches held by [module]'s components of [CompilerMemory.COMPILATION_CACHES]. */
    private fun filledCaches(module: FirModuleData): List<String> = module.session
        .filter { it.javaClass in CompilerMemory.COMPILATION_CACHES }
        .flatMap { component ->
            K2Internals.fieldValues(Lookup.COMPONENT_FIELDS, component).filterIsInstance<FirCache<*, *, *>>()
                .filter { K2Internals.cacheEntries(it)?.isNotEmpty() == true }
                .map { "${component.javaClass.simpleName}: ${K2Internals.cacheEntries(it)?.size} entries" }
        }

    private fun configurationCaches(host: ReplCompilerHost): List<Map<*, *>> = listOfNotNull(
        K2Internals.call<ScriptConfigurationsProvider>(Lookup.SCRIPT_CONFIGURATIONS_PROVIDER, host.compilationState)
            ?.let { K2Internals.read<Map<*, *>>(Lookup.CONFIGURATIONS_CACHE, it) },
        K2Internals.call<ScriptingHostConfiguration>(Lookup.HOST_CONFIGURATION, host.compilationState)
            ?.get(ScriptingHostConfiguration.scriptRefinedCompilationConfigurationsCache)
            ?.let { K2Internals.read<Map<*, *>>(Lookup.REFINED_CACHE, it) },
    )

    private fun enhancedMembers(host: ReplCompilerHost): Map<*, *> {
        val context = assertNotNull(K2Internals.call<FirJvmSessionFactory.Context>(Lookup.SESSION_FACTORY_CONTEXT, host.compilationState))
        return assertNotNull(K2Internals.cacheEntries(context.predefinedJavaComponents.enhancementStorage.cacheByOwner))
    }

    /** The enhanced Java members in the shared cache that belong to a snippet module, by name. */
    @OptIn(SymbolInternals::class)
    private fun snippetEnhancedMembers(host: ReplCompilerHost): List<String> =
        enhancedMembers(host).values.filterIsInstance<FirEnhancedSymbolsStorage.EnhancementSymbolsCache>().flatMap { symbols ->
            listOf(symbols.enhancedFunctions, symbols.enhancedVariables).flatMap { cache ->
                K2Internals.cacheEntries(cache).orEmpty().entries.flatMap { listOf(it.key, it.value) }
            }
        }.mapNotNull { symbol ->
            (symbol as? FirBasedSymbol<*>)?.fir?.moduleData?.name?.asString()?.takeIf {
                it.startsWith(CompilerMemory.SNIPPET_MODULE_PREFIX)
            }
        }

    /** The classpath index's remembered package lookups, as "root n: m entries". */
    private fun packageLookups(host: ReplCompilerHost): List<String> {
        val manager = host.project.getService(JavaFileManager::class.java) as KotlinCliJavaFileManagerImpl
        val compound = assertNotNull(K2Internals.read<JvmDependenciesDynamicCompoundIndex>(Lookup.CLASSPATH_INDEX, manager))
        val indices = assertNotNull(K2Internals.read<List<*>>(Lookup.INDICES, compound)).filterIsInstance<JvmDependenciesIndexBase>()
        assertTrue(indices.isNotEmpty(), "the classpath has indices")
        return indices.flatMap { index ->
            val lazy = assertNotNull(K2Internals.read<Lazy<*>>(Lookup.PACKAGE_CACHE, index))
            val maps = (lazy.takeIf { it.isInitialized() }?.value as? Array<*>).orEmpty().filterIsInstance<Map<*, *>>()
            maps.withIndex().filter { it.value.isNotEmpty() }.map { "root ${it.index}: ${it.value.size} entries" }
        }
    }

    /** Whether the walk [found] its target, the [path] to it (classes from a root), how many objects it [visited]. */
    private class Walk(val found: Boolean, val path: List<String>, val visited: Int, val complete: Boolean)

    /** A breadth-first walk of what [roots] refer to ([K2Internals.referents]), until [target] or [WALK_BUDGET] objects. */
    private fun walk(roots: List<Any>, target: (Any) -> Boolean): Walk {
        val parents = IdentityHashMap<Any, Any>()
        val seen: MutableSet<Any> = Collections.newSetFromMap(IdentityHashMap())
        val pending = ArrayDeque<Any>()
        for (root in roots) if (seen.add(root)) pending.add(root)
        while (true) {
            val node = pending.removeFirstOrNull() ?: return Walk(false, emptyList(), seen.size, true)
            if (target(node)) {
                val path = generateSequence(node) { parents[it] }.map { it.javaClass.name }.toList().asReversed()
                return Walk(true, path, seen.size, true)
            }
            for (next in K2Internals.referents(node)) {
                if (!seen.add(next)) continue
                if (seen.size > WALK_BUDGET) return Walk(false, emptyList(), seen.size, false)
                parents[next] = node
                pending.add(next)
            }
        }
    }

    private companion object {
        const val WALK_BUDGET = 3_000_000
    }
}
