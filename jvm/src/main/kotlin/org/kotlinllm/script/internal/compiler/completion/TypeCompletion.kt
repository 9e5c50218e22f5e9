@file:OptIn(SymbolInternals::class, DirectDeclarationsAccess::class)

package org.kotlinllm.script.internal.compiler.completion

import org.jetbrains.kotlin.descriptors.ClassKind
import org.jetbrains.kotlin.fir.declarations.DirectDeclarationsAccess
import org.jetbrains.kotlin.fir.declarations.FirEnumEntry
import org.jetbrains.kotlin.fir.declarations.FirRegularClass
import org.jetbrains.kotlin.fir.declarations.staticScope
import org.jetbrains.kotlin.fir.expressions.FirResolvedQualifier
import org.jetbrains.kotlin.fir.resolve.calls.FirSyntheticPropertiesScope
import org.jetbrains.kotlin.fir.resolve.defaultType
import org.jetbrains.kotlin.fir.resolve.fullyExpandedType
import org.jetbrains.kotlin.fir.resolve.lookupSuperTypes
import org.jetbrains.kotlin.fir.resolve.providers.symbolProvider
import org.jetbrains.kotlin.fir.resolve.scope
import org.jetbrains.kotlin.fir.resolve.toSymbol
import org.jetbrains.kotlin.fir.scopes.CallableCopyTypeCalculator
import org.jetbrains.kotlin.fir.scopes.FirContainingNamesAwareScope
import org.jetbrains.kotlin.fir.scopes.processAllCallables
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirClassSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirSyntheticPropertySymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirTypeParameterSymbol
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
import org.jetbrains.kotlin.fir.types.typeContext
import org.jetbrains.kotlin.fir.types.withArguments
import org.jetbrains.kotlin.fir.types.withNullability
import org.jetbrains.kotlin.name.ClassId
import org.jetbrains.kotlin.name.FqName
import org.jetbrains.kotlin.name.Name
import org.jetbrains.kotlin.name.StandardClassIds
import org.kotlinllm.script.internal.compiler.completion.FirCompletion.Companion.RANK_MEMBER

// Completion by a receiver's static type (its members and the extensions that apply to it) and after a class or
// package name (what it holds): the lookups of a Listing that has a receiver.

/** Members of [type] and the extensions that apply to it, by the type without its nullability (as the IDE). */
internal fun Listing.membersAndExtensions(type: ConeKotlinType, rank: Int, publicOnly: Boolean) {
    if (type is ConeErrorType) return
    val receiver = type.withNullability(false, session.typeContext)
    members(receiver, rank, publicOnly)
    extensions(receiver, rank + 1)
}

private fun Listing.members(type: ConeKotlinType, rank: Int, publicOnly: Boolean) {
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

/** Top-level extensions of the imported packages, the session and the cell whose receiver [type] can be. */
private fun Listing.extensions(type: ConeKotlinType, rank: Int) {
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
private fun Listing.receiverClasses(type: ConeKotlinType): Set<ClassId>? {
    val classType = type.fullyExpandedType(session).lowerBoundIfFlexible() as? ConeClassLikeType ?: return null
    val symbol = classType.lookupTag.toSymbol(session) ?: return null
    return lookupSuperTypes(symbol, lookupInterfaces = true, deep = true, useSiteSession = session)
        .mapTo(HashSet()) { it.lookupTag.classId }
        .apply {
            add(classType.lookupTag.classId)
            add(StandardClassIds.Any)
        }
}

private fun Listing.classOf(type: ConeKotlinType): ClassId? =
    (type.fullyExpandedType(session).lowerBoundIfFlexible() as? ConeClassLikeType)?.lookupTag?.classId

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

/** After `Name.`: a class's static members, nested classes and companion members; a package's top level. */
internal fun Listing.qualified(qualifier: FirResolvedQualifier) {
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

private fun Listing.names(scope: FirContainingNamesAwareScope, rank: Int) {
    scope.processAllCallables { if (matches(it.name) && isPublic(it)) symbol(it, rank) }
}

private fun Listing.packageMembers(pkg: FqName) {
    val provider = session.symbolProvider
    provider.symbolNamesProvider.getTopLevelCallableNamesInPackage(pkg).orEmpty().filter(this::matches).forEach { name ->
        provider.getTopLevelCallableSymbols(pkg, name).forEach { symbol(it, RANK_MEMBER) }
    }
    provider.symbolNamesProvider.getTopLevelClassifierNamesInPackage(pkg).orEmpty().filter(this::matches).forEach { name ->
        provider.getClassLikeSymbolByClassId(ClassId(pkg, name))?.takeIf(::isPublic)?.let { symbol(it, RANK_MEMBER) }
    }
}
