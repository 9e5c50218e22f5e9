@file:OptIn(SymbolInternals::class, DirectDeclarationsAccess::class)

package org.kotlinllm.script.internal.compiler.completion

import org.jetbrains.kotlin.descriptors.ClassKind
import org.jetbrains.kotlin.descriptors.Visibilities
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.declarations.DirectDeclarationsAccess
import org.jetbrains.kotlin.fir.declarations.FirDeclaration
import org.jetbrains.kotlin.fir.declarations.FirNamedFunction
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.declarations.FirReplSnippet
import org.jetbrains.kotlin.fir.declarations.FirVariable
import org.jetbrains.kotlin.fir.declarations.getDeprecation
import org.jetbrains.kotlin.fir.declarations.utils.isReplSnippetDeclaration
import org.jetbrains.kotlin.fir.extensions.replSnippetResolveExtension
import org.jetbrains.kotlin.fir.moduleData
import org.jetbrains.kotlin.fir.resolve.providers.symbolProvider
import org.jetbrains.kotlin.fir.scopes.defaultImportsProvider
import org.jetbrains.kotlin.fir.symbols.FirBasedSymbol
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirCallableSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirFunctionSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirNamedFunctionSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirReplSnippetSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirVariableSymbol
import org.jetbrains.kotlin.name.FqName
import org.jetbrains.kotlin.name.Name
import org.jetbrains.kotlin.resolve.deprecation.DeprecationLevelValue
import org.kotlinllm.script.internal.compiler.ResolvedProbe
import org.kotlinllm.script.internal.compiler.Signatures
import org.kotlinllm.script.internal.compiler.TransactionalReplHistory
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.RESULT_FIELD
import java.util.Optional

/**
 * The candidates of one completion at the marker of [probe] whose names start with [prefix]: each name once, with
 * its best rank. The lookups filling it are in TypeCompletion.kt (after a receiver or a class name) and
 * ScopeCompletion.kt (without one); what it reads of the libraries is kept in [library] between probes, and a
 * warm-up stops reading once [yieldWhen] is true.
 */
internal class Listing(
    val probe: ResolvedProbe,
    val prefix: String,
    private val yieldWhen: () -> Boolean,
    private val history: TransactionalReplHistory,
    private val library: LibrarySymbols,
) {
    val session: FirSession = probe.session
    private val byText = LinkedHashMap<String, Candidate>()

    /** Whether a warm-up stopped reading because another thread wants the compiler. */
    var yielded = false
        private set

    fun yields(): Boolean = yielded || yieldWhen().also { yielded = it }

    fun matches(name: Name): Boolean {
        if (name.isSpecial) return false
        val text = name.asString()
        return text.startsWith(prefix, ignoreCase = true) && '$' !in text && !RESULT_FIELD.matches(text)
    }

    fun add(text: String, kind: String, signature: String, rank: Int) {
        val known = byText[text]
        if (known == null || known.rank > rank) byText[text] = Candidate(text, kind, signature, rank)
    }

    fun sorted(): List<Candidate> = byText.values.sortedWith(
        compareBy<Candidate>({ it.rank }, { it.deprecated }, { !it.text.startsWith(prefix) }, { it.text.lowercase() }, { it.text }),
    )

    fun symbol(symbol: FirBasedSymbol<*>, rank: Int) {
        val deprecation = deprecation(symbol)
        if (deprecation == DeprecationLevelValue.HIDDEN) return
        val deprecated = deprecation != null
        val text = when (symbol) {
            is FirCallableSymbol<*> -> symbol.callableId?.callableName?.asString() ?: return
            is FirClassLikeSymbol<*> -> symbol.classId.shortClassName.asString()
            else -> return
        }
        val signature = signature(symbol).let { if (deprecated) "@Deprecated $it" else it }
        val known = byText[text]
        // a class wins over a function of its name (`String` over the `String(…)` factory functions)
        val classOverFunction = known != null && known.kind == "function" && symbol is FirClassLikeSymbol<*> && known.rank >= rank
        if (known == null || known.rank > rank || (known.rank == rank && known.deprecated && !deprecated) || classOverFunction) {
            byText[text] = Candidate(text, kindOf(symbol), signature, rank, deprecated)
        }
    }

    private fun deprecation(symbol: FirBasedSymbol<*>): DeprecationLevelValue? {
        if (!isLibrary(symbol)) return deprecationOf(symbol)
        return library.deprecations.getOrPut(symbol) { Optional.ofNullable(deprecationOf(symbol)) }.orElse(null)
    }

    private fun deprecationOf(symbol: FirBasedSymbol<*>): DeprecationLevelValue? =
        runCatching { symbol.getDeprecation(session, null)?.deprecationLevel }.getOrNull()

    private fun signature(symbol: FirBasedSymbol<*>): String =
        if (isLibrary(symbol)) library.signatures.getOrPut(symbol) { Signatures.of(symbol) } else Signatures.of(symbol)

    /** A symbol of a library (not of a snippet, nor a member seen through this probe's session), kept between probes. */
    private fun isLibrary(symbol: FirBasedSymbol<*>): Boolean {
        val module = (symbol.fir as? FirDeclaration)?.moduleData ?: return false
        return module.session !== session && module.dependencies.isEmpty()
    }

    /**
     * The top-level callables in scope whose names match: imported (star or by name) and the session's;
     * [extensions] or the others.
     */
    fun topLevelCallables(extensions: Boolean): Sequence<FirCallableSymbol<*>> = sequence {
        val provider = session.symbolProvider
        for (import in imports()) {
            if (import.isAllUnder) {
                for (callable in libraryCallables(import.fqName)) {
                    if (callable.isExtension == extensions) yield(callable.symbol)
                }
            } else if (matches(import.fqName.shortName())) {
                for (symbol in provider.getTopLevelCallableSymbols(import.fqName.parent(), import.fqName.shortName())) {
                    if ((symbol.resolvedReceiverType != null) == extensions) yield(symbol)
                }
            }
        }
        for (symbol in sessionDeclarations()) {
            if (symbol is FirCallableSymbol<*> && (symbol.resolvedReceiverType != null) == extensions) yield(symbol)
        }
    }

    /**
     * The public top-level callables of package [pkg] in the session's libraries whose names match, each name read
     * once and kept between probes (library symbols belong to the libraries' sessions, which live as long as the
     * compiler) until a library is added: a first completion with a prefix reads only the names it needs.
     */
    private fun libraryCallables(pkg: FqName): List<LibraryCallable> {
        library.keepFor(session.moduleData.dependencies.size)
        val provider = session.symbolProvider
        val byName = library.callables.getOrPut(pkg) { HashMap() }
        val names = provider.symbolNamesProvider.getTopLevelCallableNamesInPackage(pkg).orEmpty()
        return names.filter(::matches).takeWhile { name -> name in byName || !yields() }.flatMap { name ->
            byName.getOrPut(name) {
                provider.getTopLevelCallableSymbols(pkg, name)
                    .filter { it.moduleData.session !== session && isPublic(it) && deprecation(it) != DeprecationLevelValue.HIDDEN }
                    .map { LibraryCallable(it, name, it.resolvedReceiverType != null) }
            }
        }
    }

    /** The default imports of Kotlin on the JVM, then the script's and the history's and the cell's own. */
    fun imports(): List<Import> {
        val defaults = session.defaultImportsProvider.getDefaultImports(false).map { Import(it.fqName, it.isAllUnder) }
        // the script's default imports (kotlin.math.*, the scope functions, …) and the earlier snippets' imports
        val snippet = probe.file.declarations.filterIsInstance<FirReplSnippet>().firstOrNull()
        val source = probe.file.sourceFile
        val script = if (snippet == null || source == null) emptyList() else session.replSnippetResolveExtension
            ?.getSnippetDefaultImports(source, snippet).orEmpty()
        val explicit = (script + probe.file.imports).mapNotNull { import ->
            import.importedFqName?.let { Import(it, import.isAllUnder) }
        }
        return (defaults + explicit).distinct()
    }

    /** The declarations of earlier snippets (the newest of each name wins) and of the cell being completed. */
    fun sessionDeclarations(): List<FirBasedSymbol<*>> {
        val snippets = history.getSnippets().toList() + listOfNotNull(probeSnippet())
        val byName = LinkedHashMap<Pair<Name, Boolean>, MutableList<FirBasedSymbol<*>>>()
        for (snippet in snippets) {
            val declared = snippet.fir.snippetClass.declarations.filter { it.isReplSnippetDeclaration == true }
            val fresh = HashMap<Pair<Name, Boolean>, MutableList<FirBasedSymbol<*>>>()
            for (declaration in declared) {
                val key = keyOf(declaration) ?: continue
                if (!matches(key.first)) continue
                fresh.getOrPut(key) { ArrayList() } += declaration.symbol
            }
            byName.putAll(fresh)
        }
        return byName.values.flatten()
    }

    private fun probeSnippet(): FirReplSnippetSymbol? =
        probe.file.declarations.filterIsInstance<FirReplSnippet>().firstOrNull()?.symbol

    private fun keyOf(declaration: FirDeclaration): Pair<Name, Boolean>? = when (declaration) {
        is FirNamedFunction -> declaration.name to true
        is FirVariable -> declaration.name to false
        is FirRegularClass -> declaration.name to false
        is org.jetbrains.kotlin.fir.declarations.FirTypeAlias -> declaration.name to false
        else -> null
    }

    private fun kindOf(symbol: FirBasedSymbol<*>): String = when (symbol) {
        is FirNamedFunctionSymbol -> "function"
        is FirFunctionSymbol<*> -> "function"
        is FirVariableSymbol<*> -> "property"
        is FirClassSymbol<*> -> when (symbol.classKind) {
            ClassKind.INTERFACE -> "interface"
            ClassKind.OBJECT -> "object"
            ClassKind.ENUM_CLASS -> "enum"
            ClassKind.ENUM_ENTRY -> "property"
            else -> "class"
        }
        is FirClassLikeSymbol<*> -> "typealias"
        else -> "name"
    }
}

internal data class Import(val fqName: FqName, val isAllUnder: Boolean)

internal class LibraryCallable(val symbol: FirCallableSymbol<*>, val name: Name, val isExtension: Boolean)

/**
 * What completion read of the session's libraries, kept between probes (library symbols belong to the libraries'
 * sessions, which live as long as the compiler) until a library is added: their public top-level callables by
 * package and name, their signatures and deprecations.
 */
internal class LibrarySymbols {
    val callables = HashMap<FqName, HashMap<Name, List<LibraryCallable>>>()
    val signatures = HashMap<FirBasedSymbol<*>, String>()
    val deprecations = HashMap<FirBasedSymbol<*>, Optional<DeprecationLevelValue>>()
    private var modules = -1

    /** Forgets what it kept when the session no longer has [modules] library modules (a library was added). */
    fun keepFor(modules: Int) {
        if (modules == this.modules) return
        callables.clear()
        signatures.clear()
        deprecations.clear()
        this.modules = modules
    }
}

internal fun isPublic(symbol: FirCallableSymbol<*>): Boolean = symbol.resolvedStatus.visibility == Visibilities.Public

internal fun isPublic(symbol: FirClassLikeSymbol<*>): Boolean = symbol.resolvedStatus.visibility == Visibilities.Public
