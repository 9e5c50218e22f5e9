package org.kotlinllm.script.internal.compiler.completion

import org.jetbrains.kotlin.KtPsiSourceElement
import org.jetbrains.kotlin.descriptors.ClassKind
import org.jetbrains.kotlin.descriptors.Visibilities
import org.jetbrains.kotlin.fir.FirElement
import org.jetbrains.kotlin.fir.FirSession
import org.jetbrains.kotlin.fir.declarations.DirectDeclarationsAccess
import org.jetbrains.kotlin.fir.declarations.FirAnonymousFunction
import org.jetbrains.kotlin.fir.declarations.FirCallableDeclaration
import org.jetbrains.kotlin.fir.declarations.FirDeclaration
import org.jetbrains.kotlin.fir.declarations.FirEnumEntry
import org.jetbrains.kotlin.fir.declarations.FirFunction
import org.jetbrains.kotlin.fir.declarations.FirNamedFunction
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.declarations.FirReplSnippet
import org.jetbrains.kotlin.fir.declarations.FirVariable
import org.jetbrains.kotlin.fir.declarations.getDeprecation
import org.jetbrains.kotlin.fir.declarations.staticScope
import org.jetbrains.kotlin.fir.declarations.utils.isReplSnippetDeclaration
import org.jetbrains.kotlin.fir.expressions.FirArgumentList
import org.jetbrains.kotlin.fir.expressions.FirBlock
import org.jetbrains.kotlin.fir.expressions.FirCatch
import org.jetbrains.kotlin.fir.expressions.FirFunctionCall
import org.jetbrains.kotlin.fir.expressions.FirQualifiedAccessExpression
import org.jetbrains.kotlin.fir.expressions.FirResolvedQualifier
import org.jetbrains.kotlin.fir.expressions.FirWhenExpression
import org.jetbrains.kotlin.fir.extensions.replSnippetResolveExtension
import org.jetbrains.kotlin.fir.moduleData
import org.jetbrains.kotlin.fir.references.FirErrorNamedReference
import org.jetbrains.kotlin.fir.references.FirNamedReference
import org.jetbrains.kotlin.fir.references.FirResolvedNamedReference
import org.jetbrains.kotlin.fir.resolve.calls.FirSyntheticPropertiesScope
import org.jetbrains.kotlin.fir.resolve.defaultType
import org.jetbrains.kotlin.fir.resolve.diagnostics.ConeDiagnosticWithCandidates
import org.jetbrains.kotlin.fir.resolve.diagnostics.ConeDiagnosticWithSingleCandidate
import org.jetbrains.kotlin.fir.resolve.fullyExpandedType
import org.jetbrains.kotlin.fir.resolve.lookupSuperTypes
import org.jetbrains.kotlin.fir.resolve.providers.symbolProvider
import org.jetbrains.kotlin.fir.resolve.scope
import org.jetbrains.kotlin.fir.resolve.toSymbol
import org.jetbrains.kotlin.fir.scopes.CallableCopyTypeCalculator
import org.jetbrains.kotlin.fir.scopes.FirContainingNamesAwareScope
import org.jetbrains.kotlin.fir.scopes.defaultImportsProvider
import org.jetbrains.kotlin.fir.scopes.processAllCallables
import org.jetbrains.kotlin.fir.symbols.FirBasedSymbol
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirCallableSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirFunctionSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirNamedFunctionSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirReplSnippetSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirSyntheticPropertySymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirTypeParameterSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirVariableSymbol
import org.jetbrains.kotlin.fir.types.ConeClassLikeType
import org.jetbrains.kotlin.fir.types.ConeErrorType
import org.jetbrains.kotlin.fir.types.ConeKotlinType
import org.jetbrains.kotlin.fir.types.ConeKotlinTypeProjection
import org.jetbrains.kotlin.fir.types.ConeStarProjection
import org.jetbrains.kotlin.fir.types.ConeTypeParameterType
import org.jetbrains.kotlin.fir.types.ConeTypeProjection
import org.jetbrains.kotlin.fir.types.coneType
import org.jetbrains.kotlin.fir.types.contains
import org.jetbrains.kotlin.fir.types.isMarkedNullable
import org.jetbrains.kotlin.fir.types.isSubtypeOf
import org.jetbrains.kotlin.fir.types.lowerBoundIfFlexible
import org.jetbrains.kotlin.fir.types.resolvedType
import org.jetbrains.kotlin.fir.types.typeContext
import org.jetbrains.kotlin.fir.types.withArguments
import org.jetbrains.kotlin.fir.types.withNullability
import org.jetbrains.kotlin.fir.visitors.FirVisitorVoid
import org.jetbrains.kotlin.name.ClassId
import org.jetbrains.kotlin.name.FqName
import org.jetbrains.kotlin.name.Name
import org.jetbrains.kotlin.name.StandardClassIds
import org.jetbrains.kotlin.psi.KtCallElement
import org.jetbrains.kotlin.psi.KtQualifiedExpression
import org.jetbrains.kotlin.resolve.deprecation.DeprecationLevelValue
import org.kotlinllm.script.internal.compiler.ResolvedProbe
import org.kotlinllm.script.internal.compiler.Signatures
import org.kotlinllm.script.internal.compiler.TransactionalReplHistory
import java.util.Optional

/** One completion: the [text] to insert, its [kind] (`function`, `property`, `class`, …) and its [signature]. */
internal class Candidate(val text: String, val kind: String, val signature: String, val rank: Int, val deprecated: Boolean = false)

/**
 * Completion by static type, read from the K2 frontend's resolution of the cell with [MARKER] appended to the word
 * at the cursor ([CompletionProbe]): after a dot, the members and applicable extensions of the receiver's type (or
 * the static members of a class named before the dot); otherwise the names in scope there (locals, parameters,
 * members of implicit receivers, the session's declarations, imported names), named arguments directly inside a
 * call's parentheses, and keywords.
 */
@OptIn(SymbolInternals::class, DirectDeclarationsAccess::class)
internal class FirCompletion(private val history: TransactionalReplHistory) {

    /** The candidates at the marker of [probe] whose names start with [prefix]. */
    fun candidates(probe: ResolvedProbe, prefix: String): List<Candidate> = listing(probe, prefix) { false }.sorted()

    /**
     * Lists the candidates at the marker of [probe] for the libraries' names and signatures it reads and keeps, and
     * stops reading once [yieldWhen] is true; whether it read them all.
     */
    fun warmUp(probe: ResolvedProbe, yieldWhen: () -> Boolean): Boolean = !listing(probe, "", yieldWhen).yielded

    private fun listing(probe: ResolvedProbe, prefix: String, yieldWhen: () -> Boolean): Listing {
        val finder = MarkerFinder()
        probe.file.accept(finder)
        val listing = Listing(probe, prefix, yieldWhen)
        val found = finder.found
        if (found == null) {
            // no expression at the marker: a type (`val x: Li`) or a declaration's name
            listing.classifiersInScope()
            return listing
        }
        val receiver = found.explicitReceiver
        when {
            receiver is FirResolvedQualifier -> listing.qualified(receiver)
            receiver != null -> listing.membersAndExtensions(receiver.resolvedType, RANK_MEMBER, publicOnly = true)
            else -> listing.inScope(finder.path, found)
        }
        return listing
    }

    private inner class Listing(val probe: ResolvedProbe, val prefix: String, private val yieldWhen: () -> Boolean) {
        private val session: FirSession = probe.session
        private val byText = LinkedHashMap<String, Candidate>()

        /** Whether a warm-up stopped reading because another thread wants the compiler. */
        var yielded = false
            private set

        private fun yields(): Boolean = yielded || yieldWhen().also { yielded = it }

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
            return libraryDeprecations.getOrPut(symbol) { Optional.ofNullable(deprecationOf(symbol)) }.orElse(null)
        }

        private fun deprecationOf(symbol: FirBasedSymbol<*>): DeprecationLevelValue? =
            runCatching { symbol.getDeprecation(session, null)?.deprecationLevel }.getOrNull()

        private fun signature(symbol: FirBasedSymbol<*>): String =
            if (isLibrary(symbol)) librarySignatures.getOrPut(symbol) { Signatures.of(symbol) } else Signatures.of(symbol)

        /** A symbol of a library (not of a snippet, nor a member seen through this probe's session), kept between probes. */
        private fun isLibrary(symbol: FirBasedSymbol<*>): Boolean {
            val module = (symbol.fir as? FirDeclaration)?.moduleData ?: return false
            return module.session !== session && module.dependencies.isEmpty()
        }

        fun classifiersInScope() {
            for (symbol in sessionDeclarations()) if (symbol is FirClassLikeSymbol<*>) symbol(symbol, RANK_SESSION)
            if (prefix.isNotEmpty()) importedClassifiers()
        }

        /** Members of [type] and the extensions that apply to it, by the type without its nullability (as the IDE). */
        fun membersAndExtensions(type: ConeKotlinType, rank: Int, publicOnly: Boolean) {
            if (type is ConeErrorType) return
            val receiver = type.withNullability(false, session.typeContext)
            members(receiver, rank, publicOnly)
            extensions(receiver, rank + 1)
        }

        private fun members(type: ConeKotlinType, rank: Int, publicOnly: Boolean) {
            val scope = type.scope(session, probe.scopeSession, CallableCopyTypeCalculator.DoNothing, null) ?: return
            val getters = HashSet<Name>()
            FirSyntheticPropertiesScope.createIfSyntheticNamesProviderIsDefined(session, type, scope)?.let { synthetic ->
                for (name in synthetic.getCallableNames()) {
                    if (!matches(name)) continue
                    synthetic.processPropertiesByName(name) { property ->
                        if (publicOnly && !isPublic(property)) return@processPropertiesByName
                        if (property is FirSyntheticPropertySymbol) getters += property.getterId.callableName
                        symbol(property, rank)
                    }
                }
            }
            for (name in scope.getCallableNames()) {
                if (!matches(name)) continue
                scope.processFunctionsByName(name) { function ->
                    val hiddenGetter = name in getters && function.valueParameterSymbols.isEmpty()
                    if (!hiddenGetter && (!publicOnly || isPublic(function))) symbol(function, rank)
                }
                scope.processPropertiesByName(name) { property -> if (!publicOnly || isPublic(property)) symbol(property, rank) }
            }
        }

        private fun isPublic(symbol: FirCallableSymbol<*>): Boolean = symbol.resolvedStatus.visibility == Visibilities.Public

        /** Top-level extensions of the imported packages, the session and the cell whose receiver [type] can be. */
        private fun extensions(type: ConeKotlinType, rank: Int) {
            val classes = receiverClasses(type)
            for (callable in topLevelCallables(extensions = true)) {
                if (yields()) return
                val receiverType = callable.resolvedReceiverType ?: continue
                val receiverClass = classOf(receiverType)
                if (classes != null && receiverClass != null && receiverClass !in classes) continue
                if (applies(type, receiverType, callable.typeParameterSymbols)) symbol(callable, rank)
            }
        }

        /** The classes [type] is an instance of (its class and its supertypes'), or null when it is no class type. */
        private fun receiverClasses(type: ConeKotlinType): Set<ClassId>? {
            val classType = type.fullyExpandedType(session).lowerBoundIfFlexible() as? ConeClassLikeType ?: return null
            val symbol = classType.lookupTag.toSymbol(session) ?: return null
            return lookupSuperTypes(symbol, lookupInterfaces = true, deep = true, useSiteSession = session)
                .mapTo(HashSet()) { it.lookupTag.classId }
                .apply {
                    add(classType.lookupTag.classId)
                    add(StandardClassIds.Any)
                }
        }

        private fun classOf(type: ConeKotlinType): ClassId? =
            (type.fullyExpandedType(session).lowerBoundIfFlexible() as? ConeClassLikeType)?.lookupTag?.classId

        /**
         * The top-level callables in scope whose names match: imported (star or by name) and the session's;
         * [extensions] or the others.
         */
        private fun topLevelCallables(extensions: Boolean): Sequence<FirCallableSymbol<*>> = sequence {
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
            val libraries = session.moduleData.dependencies.size
            if (libraries != libraryModules) {
                libraryCache.clear()
                librarySignatures.clear()
                libraryDeprecations.clear()
                libraryModules = libraries
            }
            val provider = session.symbolProvider
            val byName = libraryCache.getOrPut(pkg) { HashMap() }
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
        private fun imports(): List<Import> {
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

        /** After `Name.`: a class's static members, nested classes and companion members; a package's top level. */
        fun qualified(qualifier: FirResolvedQualifier) {
            val classSymbol = qualifier.qualifierSymbol as? FirClassSymbol<*>
            if (classSymbol == null) {
                packageMembers(
                    qualifier.packageFqName.let { pkg ->
                        qualifier.relativeClassFqName?.let { pkg.child(it.shortName()) } ?: pkg
                    },
                )
                return
            }
            val name = classSymbol.classId.shortClassName
            for (entry in classSymbol.fir.declarations.filterIsInstance<FirEnumEntry>()) {
                if (matches(entry.name)) add(entry.name.asString(), "enum entry", "$name.${entry.name}", RANK_MEMBER)
            }
            classSymbol.staticScope(session, probe.scopeSession)?.let { names(it, RANK_MEMBER) }
            classSymbol.fir.declarations.filterIsInstance<FirRegularClass>().forEach { nested ->
                if (matches(nested.name) && isPublic(nested.symbol)) symbol(nested.symbol, RANK_MEMBER)
            }
            val companion = (classSymbol.fir as? FirRegularClass)?.companionObjectSymbol
            if (companion != null) members(companion.defaultType(), RANK_MEMBER, publicOnly = true)
            if (classSymbol.classKind == ClassKind.OBJECT) membersAndExtensions(classSymbol.defaultType(), RANK_MEMBER, publicOnly = true)
        }

        private fun isPublic(symbol: FirClassLikeSymbol<*>): Boolean = symbol.resolvedStatus.visibility == Visibilities.Public

        private fun names(scope: FirContainingNamesAwareScope, rank: Int) {
            scope.processAllCallables { if (matches(it.name) && isPublic(it)) symbol(it, rank) }
        }

        private fun packageMembers(pkg: FqName) {
            val provider = session.symbolProvider
            provider.symbolNamesProvider.getTopLevelCallableNamesInPackage(pkg).orEmpty().filter(::matches).forEach { name ->
                provider.getTopLevelCallableSymbols(pkg, name).forEach { symbol(it, RANK_MEMBER) }
            }
            provider.symbolNamesProvider.getTopLevelClassifierNamesInPackage(pkg).orEmpty().filter(::matches).forEach { name ->
                provider.getClassLikeSymbolByClassId(ClassId(pkg, name))?.takeIf(::isPublic)?.let { symbol(it, RANK_MEMBER) }
            }
        }

        /** Without a receiver: what the path to the marker declares, implicit receivers, the session, imports, keywords. */
        fun inScope(path: List<FirElement>, found: FirQualifiedAccessExpression) {
            namedArguments(path, found)
            locals(path, found)
            for (symbol in sessionDeclarations()) symbol(symbol, RANK_SESSION)
            if (prefix.isNotEmpty()) {
                for (callable in topLevelCallables(extensions = false)) {
                    symbol(
                        callable,
                        callable.callableId?.packageName?.let(::importedRank) ?: RANK_IMPORTED,
                    )
                }
            }
            if (prefix.isNotEmpty()) importedClassifiers()
            for (keyword in KotlinKeywords.HARD + KotlinKeywords.SOFT) {
                if (keyword.startsWith(prefix) && keyword != prefix) add(keyword, "keyword", keyword, RANK_KEYWORD)
            }
        }

        /** JetBrains' kernel API, default-imported for notebooks written for that kernel, comes after everything else. */
        private fun importedRank(pkg: FqName): Int = if (pkg.asString().startsWith(JUPYTER_API)) RANK_JUPYTER_API else RANK_IMPORTED

        private fun importedClassifiers() {
            val provider = session.symbolProvider
            for (import in imports()) {
                if (import.isAllUnder) {
                    val names = provider.symbolNamesProvider.getTopLevelClassifierNamesInPackage(import.fqName) ?: continue
                    for (name in names) {
                        if (!matches(name) || name.asString().endsWith("Kt")) continue
                        provider.getClassLikeSymbolByClassId(ClassId(import.fqName, name))
                            ?.takeIf(::isPublic)?.let { symbol(it, importedRank(import.fqName)) }
                    }
                } else if (matches(import.fqName.shortName())) {
                    provider.getClassLikeSymbolByClassId(ClassId.topLevel(import.fqName))
                        ?.let { symbol(it, importedRank(import.fqName.parent())) }
                }
            }
        }

        /** `name = ` for the parameters of the call whose argument the marker is (not inside a lambda argument). */
        private fun namedArguments(path: List<FirElement>, found: FirQualifiedAccessExpression) {
            val at = path.indexOf(found)
            val arguments = path.getOrNull(at - 1) as? FirArgumentList ?: return
            val call = path.getOrNull(at - 2) as? FirFunctionCall ?: return
            if (call.argumentList !== arguments) return
            val functions = call.calleeReference.referencedSymbols()
            // the arguments already named in the call's text are not offered again
            val psi = (call.source as? KtPsiSourceElement)?.psi
            val callElement = (psi as? KtQualifiedExpression)?.selectorExpression ?: psi
            val given = (callElement as? KtCallElement)?.valueArguments.orEmpty()
                .mapNotNullTo(HashSet()) { it.getArgumentName()?.asName }
            for (function in functions.filterIsInstance<FirFunctionSymbol<*>>()) {
                for (parameter in function.valueParameterSymbols) {
                    if (!matches(parameter.name) || parameter.name in given) continue
                    val text = "${parameter.name.asString()} = "
                    add(text, "parameter", Signatures.parameter(parameter), RANK_LOCAL)
                }
            }
        }

        /** Locals, parameters and implicit receivers of the declarations and blocks around the marker. */
        private fun locals(path: List<FirElement>, found: FirQualifiedAccessExpression) {
            val offset = found.source?.startOffset ?: Int.MAX_VALUE
            var implicitReceivers = 0
            // counted over the whole path: the innermost receivers come first
            val receiverAllowed = { implicitReceivers++ < MAX_IMPLICIT_RECEIVERS }
            for ((index, element) in path.withIndex().reversed()) {
                when (element) {
                    is FirBlock -> blockLocals(element, path.getOrNull(index + 1), offset)
                    is FirFunction -> functionLocals(element, receiverAllowed)
                    is FirRegularClass -> {
                        val snippetClass = path.getOrNull(index - 1) is FirReplSnippet
                        if (!snippetClass && receiverAllowed()) {
                            membersAndExtensions(element.symbol.defaultType(), RANK_MEMBER, publicOnly = false)
                        }
                    }
                    is FirCatch -> if (matches(element.parameter.name)) {
                        add(element.parameter.name.asString(), "variable", Signatures.of(element.parameter.symbol), RANK_LOCAL)
                    }
                    is FirWhenExpression -> element.subjectVariable?.let { subject ->
                        if (matches(subject.name)) add(subject.name.asString(), "variable", Signatures.of(subject.symbol), RANK_LOCAL)
                    }
                    else -> {}
                }
            }
        }

        /** The variables, functions and classes of [block] declared before the marker (at [offset], inside [next]). */
        private fun blockLocals(block: FirBlock, next: FirElement?, offset: Int) {
            for (statement in block.statements) {
                if (statement === next) break
                val start = statement.source?.startOffset ?: continue
                if (start >= offset) break
                if (statement is FirVariable && matches(statement.name)) {
                    add(statement.name.asString(), "variable", Signatures.of(statement.symbol), RANK_LOCAL)
                }
                if (statement is FirNamedFunction && matches(statement.name)) {
                    add(statement.name.asString(), "function", Signatures.of(statement.symbol), RANK_LOCAL)
                }
                if (statement is FirRegularClass && matches(statement.name)) symbol(statement.symbol, RANK_LOCAL)
            }
        }

        /** The parameters of a [function] around the marker, and the members of its receiver while [receiverAllowed]. */
        private fun functionLocals(function: FirFunction, receiverAllowed: () -> Boolean) {
            if (function is FirNamedFunction && function.isReplSnippetDeclaration != true && function.name.isSpecial) return
            for (parameter in function.valueParameters) {
                if (matches(parameter.name)) {
                    add(parameter.name.asString(), "parameter", Signatures.parameter(parameter.symbol), RANK_LOCAL)
                }
            }
            val receiver = function.receiverParameter?.typeRef?.coneType
            if (receiver != null && receiverAllowed()) {
                membersAndExtensions(receiver, RANK_MEMBER, publicOnly = true)
            }
        }
    }

    /**
     * Whether [receiverType] can be the receiver of an extension on [extensionReceiver] with [typeParameters]: a
     * subtype of the receiver with the extension's own type parameters star-projected (a bare type parameter
     * replaced by its bound): `List<String>` for `Iterable<T>.map`, not for `Iterable<Int>.sum`.
     */
    private fun Listing.applies(
        receiverType: ConeKotlinType,
        extensionReceiver: ConeKotlinType,
        typeParameters: List<FirTypeParameterSymbol>,
    ): Boolean {
        val own = typeParameters.toSet()
        fun ownParameter(type: ConeKotlinType) = (type as? ConeTypeParameterType)?.lookupTag?.symbol?.takeIf { it in own }
        fun starred(type: ConeKotlinType, depth: Int): ConeKotlinType? {
            ownParameter(type)?.let { parameter ->
                if (depth > 2) return null
                val bound = parameter.resolvedBounds.firstOrNull()?.coneType ?: return null
                return starred(bound, depth + 1)?.let {
                    if (type.isMarkedNullable) it.withNullability(true, probe.session.typeContext) else it
                }
            }
            if (type !is ConeClassLikeType) return type
            val arguments: Array<ConeTypeProjection> = type.typeArguments.map { argument ->
                val argumentType = (argument as? ConeKotlinTypeProjection)?.type
                if (argumentType != null && argumentType.contains { ownParameter(it) != null }) ConeStarProjection else argument
            }.toTypedArray()
            return type.withArguments(arguments)
        }
        val expected = starred(extensionReceiver, 0) ?: return true
        return runCatching { receiverType.isSubtypeOf(expected, probe.session) }.getOrDefault(false)
    }

    private data class Import(val fqName: FqName, val isAllUnder: Boolean)

    private class LibraryCallable(val symbol: FirCallableSymbol<*>, val name: Name, val isExtension: Boolean)

    private val libraryCache = HashMap<FqName, HashMap<Name, List<LibraryCallable>>>()
    private val librarySignatures = HashMap<FirBasedSymbol<*>, String>()
    private val libraryDeprecations = HashMap<FirBasedSymbol<*>, Optional<DeprecationLevelValue>>()
    private var libraryModules = -1

    /** Finds the qualified access whose name ends with the marker, and the path of elements down to it. */
    private class MarkerFinder : FirVisitorVoid() {
        val path = ArrayList<FirElement>()
        var found: FirQualifiedAccessExpression? = null

        override fun visitElement(element: FirElement) {
            if (found != null) return
            path += element
            if (element is FirQualifiedAccessExpression && isMarker(element.calleeReference as? FirNamedReference)) {
                found = element
                return
            }
            element.acceptChildren(this)
            if (element is FirReplSnippet) element.evalFunctionSymbol.fir.accept(this)
            if (found == null) path.removeAt(path.size - 1)
        }

        private fun isMarker(reference: FirNamedReference?): Boolean = reference?.name?.asString()?.endsWith(MARKER) == true
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

    companion object {
        /** Appended to the word at the cursor, so that `xs.` parses as `xs.<marker>` and `ma` as `ma<marker>`. */
        const val MARKER = "KotlinLlmCompletionMarker"
        const val RANK_LOCAL = 0
        const val RANK_MEMBER = 1
        const val RANK_SESSION = 1
        const val RANK_IMPORTED = 3
        const val RANK_KEYWORD = 4
        const val RANK_JUPYTER_API = 5
        const val JUPYTER_API = "org.jetbrains.kotlinx.jupyter.api"
        const val MAX_IMPLICIT_RECEIVERS = 3

        /** The fields holding snippets' values (`res3`): no name a user writes. */
        val RESULT_FIELD = Regex("""res\d+""")
    }
}
