package org.kotlinllm.script.internal.compiler.source

import org.jetbrains.kotlin.lexer.KotlinLexer
import org.jetbrains.kotlin.lexer.KtTokens
import org.jetbrains.kotlin.psi.KtDestructuringDeclaration
import org.jetbrains.kotlin.psi.KtFile

/**
 * Default imports of what earlier snippets declared, as `SnippetN.name`: a workaround for two bugs of the K2 REPL
 * compiler, which sees earlier snippets' declarations through a scope of its own that some of its paths leave out or
 * rank wrongly, while every path sees a snippet's imports.
 *
 * - When a declaration of an inferred type (`fun f(a: Int) = mul(a, 2)`) is needed before its turn in the snippet
 *   (`f(3)` below it), the compiler resolves it without the earlier snippets' scope: `mul` of an earlier snippet was
 *   an unresolved reference.
 * - It ranks that scope below all imports, even the default `kotlin.collections.*`, when it resolves the supertypes
 *   of a class and the right-hand side of a type alias: after `interface Iterable<out T>` in one snippet,
 *   `class Mine : Iterable<Int>` in a later one implemented `kotlin.collections.Iterable`, while `fun f():
 *   Iterable<Int>` meant the snippet's.
 *
 * The imported declaration is the newest one of its name, which is what the earlier snippets' scope resolves to, so
 * the imports change nothing where that scope is seen: it ranks above all imports there. A snippet's own imports still
 * win over these, and a name that a snippet imported itself, or that the compiled snippet declares again, is not
 * imported. Only the names the snippet's text mentions, and earlier operator functions (called by `+`, `..`, `[]`
 * as well), are imported, to keep each compilation's imports few.
 *
 * A name the session declares also hides the values of that name that the default imports bring ([VALUES]), in the
 * snippets that mention it: K2 resolves the head of a qualified name (`E` in `E.A`) as a value first, in every scope,
 * and as a class only when no value of the name is visible. A class without a companion object is no value, so
 * `kotlin.math.E` (a `Double`) won over a snippet's `enum class E`, in its cell and the later ones. A value reached
 * through a star import is hidden by an aliased import of it inserted into the snippet (an alias takes the name out
 * of the star imports); one imported by name is left out of the snippet's default imports.
 */
// No public KT issue found for either bug above; both still reproduce on 2.4.21 without these imports. The value-first
// rule for `E.A` is K2's resolution order (a qualifier is tried only when no value resolves), found in no KT issue either.
internal class ShadowingImports {

    /**
     * The newest declaration of each property, class or type alias name, as its import: `Iterable` →
     * `Snippet1.Iterable`.
     */
    private val newest = HashMap<String, String>()

    /**
     * Every snippet declaring a function of each name, the newest first: functions overload across snippets, and
     * among the applicable ones the compiler calls those of the snippet it meets first, for imported ones as for
     * the others.
     */
    private val functions = HashMap<String, LinkedHashSet<String>>()

    /** Names of earlier operator functions, which a snippet calls by an operator (`a + b`, `a..b`) as well as by name. */
    private val operators = HashSet<String>()

    /** Names that snippets imported themselves: theirs stays the only import of the name. */
    private val imported = HashSet<String>()

    /** Every name that earlier snippets declared. */
    private val declaredNames = HashSet<String>()

    /** Remembers what [parsed], run as the class [snippetClassName], declared and imported. */
    fun declared(parsed: ParsedSnippet, snippetClassName: String) {
        for (declaration in parsed.declarations) {
            val name = declaration.name
            if (declaration.isOperator) operators += name
            declaredNames += name
            when (declaration.kind) {
                DeclaredName.Kind.FUNCTION -> functions.getOrPut(name) { LinkedHashSet() } += "$snippetClassName.$name"
                DeclaredName.Kind.PROPERTY, DeclaredName.Kind.CLASS, DeclaredName.Kind.TYPEALIAS ->
                    newest[name] = "$snippetClassName.$name"
            }
        }
        // `val (a, b) = pair` declares properties that later snippets see like any other
        for (entry in destructuredNames(parsed.file)) {
            newest[entry] = "$snippetClassName.$entry"
            declaredNames += entry
        }
        imported += importedNames(parsed.file)
    }

    private fun destructuredNames(file: KtFile): List<String> =
        file.script?.declarations.orEmpty().filterIsInstance<KtDestructuringDeclaration>()
            .flatMap { it.entries }
            .mapNotNull { entry -> entry.name?.takeIf { it != "_" } }

    /** The default imports for compiling [parsed]. */
    fun imports(parsed: ParsedSnippet): List<String> {
        if (newest.isEmpty() && functions.isEmpty()) return emptyList()
        val own = parsed.declarations.mapTo(HashSet()) { it.name } + importedNames(parsed.file)
        return (mentionedNames(parsed.file) + operators)
            .filter { it !in own && it !in imported }
            .flatMap { name -> listOfNotNull(newest[name]) + functions[name].orEmpty().reversed() }
            .distinct()
    }

    /**
     * The insertion into [parsed] of the aliased imports that hide the star-imported default values of the names the
     * session declares and [parsed] mentions; none when there are none.
     */
    fun hidingInsertions(parsed: ParsedSnippet): List<SnippetRewrite.Insertion> {
        val hidden = hiddenValues(parsed).mapNotNull { VALUES[it]?.takeIf { value -> value.starImported } }
        if (hidden.isEmpty()) return emptyList()
        val file = parsed.file
        val offset = file.importDirectives.firstOrNull()?.textRange?.startOffset
            ?: maxOf(file.fileAnnotationList?.textRange?.endOffset ?: 0, file.packageDirective?.textRange?.endOffset ?: 0)
        val text = hidden.joinToString("") { " import ${it.fqName} as `hidden ${it.fqName.replace('.', '_')}`;" }
        return listOf(SnippetRewrite.Insertion(offset, "$text ", leading = true))
    }

    /** The default imports by name, of values, that compiling [parsed] goes without: the session declares their names. */
    fun hiddenImports(parsed: ParsedSnippet): List<String> =
        hiddenValues(parsed).mapNotNull { VALUES[it]?.takeIf { value -> !value.starImported }?.fqName }

    private fun hiddenValues(parsed: ParsedSnippet): List<String> {
        val candidates = VALUES.keys.filter { it in declaredNames || parsed.declarations.any { declared -> declared.name == it } }
        if (candidates.isEmpty()) return emptyList()
        val mentioned = mentionedNames(parsed.file)
        val own = importedNames(parsed.file)
        return candidates.filter { it in mentioned && it !in own }
    }

    /** The identifiers of [file]'s text, read with the compiler's lexer (string templates included). */
    private fun mentionedNames(file: KtFile): Set<String> {
        val names = LinkedHashSet<String>()
        val lexer = KotlinLexer()
        lexer.start(file.text)
        while (lexer.tokenType != null) {
            if (lexer.tokenType == KtTokens.IDENTIFIER) names += lexer.tokenText.removeSurrounding("`")
            lexer.advance()
        }
        return names
    }

    private fun importedNames(file: KtFile): List<String> =
        file.importDirectives.mapNotNull { directive -> if (directive.isAllUnder) null else directive.importedName?.asString() }

    /** A value that the session's default imports bring ([org.kotlinllm.script.internal.compiler.ReplCompilerHost]). */
    private class DefaultValue(val fqName: String, val starImported: Boolean)

    private companion object {
        /**
         * The properties that the default imports bring, by name (DefaultImportsTest declares each); objects need no
         * hiding: a class too, they lose to the session's nearer class of their name.
         */
        val VALUES: Map<String, DefaultValue> = listOf(
            DefaultValue("kotlin.math.E", starImported = true),
            DefaultValue("kotlin.math.PI", starImported = true),
            DefaultValue("org.kotlinllm.script.runtime.coroutineContext", starImported = false),
            DefaultValue("org.kotlinllm.script.runtime.scriptScope", starImported = false),
            DefaultValue("org.kotlinllm.script.runtime.notebook", starImported = false),
            DefaultValue("org.kotlinllm.script.runtime.vars", starImported = false),
        ).associateBy { it.fqName.substringAfterLast('.') }
    }
}
