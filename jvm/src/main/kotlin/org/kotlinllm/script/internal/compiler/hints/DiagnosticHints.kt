package org.kotlinllm.script.internal.compiler.hints

import org.jetbrains.kotlin.com.intellij.psi.PsiElement
import org.jetbrains.kotlin.com.intellij.psi.util.PsiTreeUtil
import org.jetbrains.kotlin.psi.KtCallExpression
import org.jetbrains.kotlin.psi.KtImportDirective
import org.jetbrains.kotlin.psi.KtQualifiedExpression
import org.jetbrains.kotlin.psi.KtSimpleNameExpression
import org.jetbrains.kotlin.psi.KtUserType
import org.kotlinllm.script.diagnostics.CompilerTexts
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.DiagnosticNames
import org.kotlinllm.script.diagnostics.Fixes
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.internal.compiler.source.ParsedSnippet
import java.io.File

/**
 * Makes a failed snippet's errors fixable in one step: an unresolved name gets the imports that would resolve it
 * (from the JDK's exported packages, the host's Kotlin libraries and the session's dependencies), the names it most
 * likely meant (from what completion sees at that place), or the `@file:DependsOn` of a well-known library that is
 * missing; errors that follow from an unresolved call (inside its arguments or lambdas) are left out and counted.
 *
 * @param hostJars the host's Kotlin libraries the snippets compile against (the standard library, kotlinx.coroutines).
 * @param dependencyJars the jars the session's `@file:DependsOn` loaded so far.
 * @param namesAt the names starting with a prefix that completion offers after a text (the snippet up to a name),
 *   null when it cannot.
 */
internal class DiagnosticHints(
    private val hostJars: List<File>,
    private val dependencyJars: () -> List<File>,
    private val namesAt: (before: String, prefix: String) -> List<String>?,
) {
    /** [diagnostics] of [parsed] with their fixes, without the errors that follow from another. */
    fun enrich(parsed: ParsedSnippet, diagnostics: List<Diagnostic>): List<Diagnostic> {
        val rooted = FollowOnErrors.group(parsed, diagnostics)
        var asked = 0
        return rooted.map { diagnostic ->
            val error = diagnostic.severity == Severity.ERROR
            if (error && diagnostic.name == DiagnosticNames.FUNCTION_EXPECTED) return@map propertyCalled(parsed, diagnostic)
            if (!error || diagnostic.name !in UNRESOLVED || asked >= MOST_HINTED) return@map diagnostic
            asked++
            val fixes = runCatching { fixes(parsed, diagnostic) }.getOrDefault(Fixes.NONE)
            if (fixes.isEmpty) diagnostic else diagnostic.copy(fixes = fixes)
        }
    }

    /** A property called with empty parentheses, as Java's `length()` and `size()` are (`s.length()`): say to drop them. */
    private fun propertyCalled(parsed: ParsedSnippet, diagnostic: Diagnostic): Diagnostic {
        val range = diagnostic.range ?: return diagnostic
        val start = parsed.source.offset(range.startLine, range.startColumn)
        val reference = PsiTreeUtil.getParentOfType(parsed.file.findElementAt(start), KtSimpleNameExpression::class.java, false)
        val call = (reference?.parent as? KtCallExpression)?.takeIf { it.calleeExpression == reference } ?: return diagnostic
        if (call.valueArguments.isNotEmpty() || call.lambdaArguments.isNotEmpty()) return diagnostic
        val name = reference.getReferencedName()
        return diagnostic.copy(hint = "'$name' is a property: drop the parentheses")
    }

    private fun fixes(parsed: ParsedSnippet, diagnostic: Diagnostic): Fixes {
        val range = diagnostic.range ?: return Fixes.NONE
        val start = parsed.source.offset(range.startLine, range.startColumn)
        val reference = PsiTreeUtil.getParentOfType(parsed.file.findElementAt(start), KtSimpleNameExpression::class.java, false)
            ?: return Fixes.NONE
        val name = reference.getReferencedName()
        PsiTreeUtil.getParentOfType(reference, KtImportDirective::class.java)?.let { return importFixes(it, reference) }
        val place = Place.of(reference)
        val receiver = CompilerTexts.RECEIVER_TYPE.find(diagnostic.message)?.groupValues?.get(1)?.let(::simpleType)
        val imports = imports(name, place, receiver, memberAfter(reference))
        if (imports.isNotEmpty()) return Fixes(imports = imports)
        if (place != Place.MEMBER) {
            KnownLibraries.forName(name)?.let { (library, import) ->
                return Fixes(imports = listOf(import), dependency = library.coordinates)
            }
        }
        // names sharing the first letter: completion reads the names of the imported packages only for a prefix, and a
        // misspelling rarely starts at the first letter
        val before = parsed.source.text.substring(0, reference.textRange.startOffset)
        val names = namesAt(before, name.take(1))?.let { Spelling.closest(name, it) }.orEmpty()
        return Fixes(names = names)
    }

    /** An import of a package that does not resolve: the dependency that brings it, when it is a well-known one. */
    private fun importFixes(directive: KtImportDirective, reference: KtSimpleNameExpression): Fixes {
        val path = directive.importedFqName?.asString() ?: return Fixes.NONE
        val segment = generateSequence(reference.parent) { it.parent }
            .takeWhile { it != directive }
            .count {
                it is KtQualifiedExpression && (it as KtQualifiedExpression).receiverExpression.textRange.contains(reference.textRange)
            }
        val before = path.split('.').size - 1 - segment
        val library = KnownLibraries.forPackage(path, before) ?: return Fixes.NONE
        return Fixes(dependency = library.coordinates)
    }

    /**
     * The imports that would resolve [name] at [place], best first; a class with the [member] used after its name
     * (`Instant.now()`) before one without.
     */
    private fun imports(name: String, place: Place, receiver: String?, member: String?): List<String> {
        val indexes = dependencyJars().map { ClasspathIndex.of(it, Origin.DEPENDENCY) } +
            hostJars.map { ClasspathIndex.of(it, Origin.KOTLIN) } + ClasspathIndex.jdk
        val candidates = indexes.flatMap { it.find(name) }.filter { place.accepts(it, receiver) && ClasspathIndex.isPublic(it) }
        val withMember = if (member == null) emptySet() else candidates.filter { ClasspathIndex.hasStaticMember(it, member) }.toSet()
        return candidates.asSequence()
            .sortedWith(
                compareBy(
                    { member != null && it !in withMember },
                    { it.origin },
                    { packageRank(it.packageName) },
                    { receiver != null && it.firstParameter == OBJECT },
                ),
            )
            .map { it.fqName }
            .distinct()
            .take(MOST_IMPORTS)
            .toList()
    }

    /** The name used after [reference] when it is the receiver of a call or property (`now` of `Instant.now()`). */
    private fun memberAfter(reference: KtSimpleNameExpression): String? {
        val qualified = reference.parent as? KtQualifiedExpression ?: return null
        if (qualified.receiverExpression != reference) return null
        val selector = qualified.selectorExpression
        val callee = (selector as? KtCallExpression)?.calleeExpression ?: selector
        return (callee as? KtSimpleNameExpression)?.getReferencedName()
    }

    /** Where an unresolved name stands, which decides what kind of declaration an import of it must bring. */
    private enum class Place {
        /** `x: Name`: a class. */
        TYPE,

        /** `receiver.name`: a function or property with a receiver of the receiver's type. */
        MEMBER,

        /** `name(…)`: a class (its constructor) or a function. */
        CALL,

        /** `name`, `Name.member`: a class (its companion or object) or a property. */
        VALUE,
        ;

        fun accepts(candidate: Importable, receiver: String?): Boolean = when (this) {
            TYPE -> !candidate.function
            MEMBER ->
                candidate.function && candidate.firstParameter != null &&
                    (receiver == null || candidate.firstParameter == OBJECT || candidate.firstParameter.substringAfterLast('.') == receiver)
            CALL, VALUE -> true
        }

        companion object {
            fun of(reference: KtSimpleNameExpression): Place {
                val parent: PsiElement? = reference.parent
                val call = (parent as? KtCallExpression)?.takeIf { it.calleeExpression == reference }
                val selected = call ?: reference
                val qualified = selected.parent as? KtQualifiedExpression
                return when {
                    parent is KtUserType -> TYPE
                    qualified != null && qualified.selectorExpression == selected -> MEMBER
                    call != null -> CALL
                    else -> VALUE
                }
            }
        }
    }

    private companion object {
        val UNRESOLVED = setOf(DiagnosticNames.UNRESOLVED_REFERENCE, DiagnosticNames.UNRESOLVED_IMPORT)
        const val OBJECT = "java.lang.Object"
        const val MOST_IMPORTS = 5

        /** Hints cost a lookup each: the first errors of a snippet get them, which are the ones to fix first. */
        const val MOST_HINTED = 5

        /** The JDK's everyday packages first (`java.util.Date` before `java.sql.Date`), then `java.*`, then the rest. */
        val EVERYDAY =
            listOf("java.util", "java.io", "java.time", "java.nio.file", "java.net", "java.math", "java.util.concurrent", "java.text")

        fun packageRank(packageName: String): Int = when {
            packageName in EVERYDAY -> EVERYDAY.indexOf(packageName)
            packageName.startsWith("kotlin") -> EVERYDAY.size
            packageName.startsWith("java.") -> EVERYDAY.size + 1
            packageName.startsWith("javax.") -> EVERYDAY.size + 2
            else -> EVERYDAY.size + 3
        }

        /** `List<Int>?` → `List`: the class a receiver's type names. */
        fun simpleType(type: String): String = type.substringBefore('<').removeSuffix("?").substringAfterLast('.')
    }
}
