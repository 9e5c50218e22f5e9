package org.kotlinllm.script.internal.compiler.source

import org.jetbrains.kotlin.com.intellij.openapi.project.Project
import org.jetbrains.kotlin.com.intellij.psi.PsiErrorElement
import org.jetbrains.kotlin.com.intellij.psi.util.PsiTreeUtil
import org.jetbrains.kotlin.lexer.KtTokens
import org.jetbrains.kotlin.psi.KtCallableDeclaration
import org.jetbrains.kotlin.psi.KtClassOrObject
import org.jetbrains.kotlin.psi.KtDeclaration
import org.jetbrains.kotlin.psi.KtFile
import org.jetbrains.kotlin.psi.KtModifierListOwner
import org.jetbrains.kotlin.psi.KtNamedDeclaration
import org.jetbrains.kotlin.psi.KtNamedFunction
import org.jetbrains.kotlin.psi.KtProperty
import org.jetbrains.kotlin.psi.KtPsiFactory
import org.jetbrains.kotlin.psi.KtScriptInitializer
import org.jetbrains.kotlin.psi.KtTypeAlias
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.diagnostics.SourceText

/** A top-level declaration of a snippet. */
internal data class DeclaredName(
    val name: String,
    val kind: Kind,
    /** The declaration's text up to its body, e.g. `fun isPlain(x: Any)`, for hints. */
    val header: String,
    /** Whether its type is inferred (a function with an expression body and no return type, a property without type). */
    val inferredType: Boolean,
    val isInline: Boolean,
    /** An `operator fun`, which code calls by its operator (`a + b`, `a..b`, `by`) as well as by name. */
    val isOperator: Boolean,
    val range: SourceRange,
) {
    enum class Kind { FUNCTION, PROPERTY, CLASS, TYPEALIAS }
}

/** A snippet parsed before compiling: its syntax errors, and what it declares. */
internal class ParsedSnippet(
    val file: KtFile,
    val source: SourceText,
    val syntaxErrors: List<Diagnostic>,
    val declarations: List<DeclaredName>,
) {
    /** Whether later snippets could refer to anything of this one: a declaration or an import. */
    val declaresAnything: Boolean by lazy {
        file.importDirectives.isNotEmpty() || file.script?.declarations.orEmpty().any { it !is KtScriptInitializer }
    }

    val declaresInline: Boolean by lazy {
        PsiTreeUtil.collectElementsOfType(file, KtModifierListOwner::class.java)
            .any { it.hasModifier(KtTokens.INLINE_KEYWORD) }
    }
}

/**
 * Parses snippets with the compiler's own PSI: the K2 REPL compiler does not report syntax errors at the end of a
 * snippet (it accepts `if (true) {` or crashes on `1 +`), so every snippet is parsed first and one with syntax errors
 * never reaches it.
 */
// No public KT issue found for the syntax errors the K2 REPL misses at a snippet's end.
internal class SnippetParser(project: Project) {

    private val factory = KtPsiFactory(project, false)

    fun parse(fileName: String, code: String): ParsedSnippet {
        val file = factory.createFile(fileName, code)
        val source = SourceText(code)
        val errors = PsiTreeUtil.collectElementsOfType(file, PsiErrorElement::class.java)
            .sortedBy { it.textRange.startOffset }
            .map { error ->
                val range = error.textRange
                Diagnostic(
                    Severity.ERROR,
                    "Syntax error: ${error.errorDescription.trimEnd('.')}.",
                    source.range(range.startOffset, range.endOffset),
                )
            }
        return ParsedSnippet(file, source, errors, declarations(file, source))
    }

    private fun declarations(file: KtFile, source: SourceText): List<DeclaredName> {
        val script = file.script ?: return emptyList()
        return script.declarations.mapNotNull { declaration -> describe(declaration, source) }
    }

    private fun describe(declaration: KtDeclaration, source: SourceText): DeclaredName? {
        val named = declaration as? KtNamedDeclaration ?: return null
        val name = named.name ?: return null
        val kind = when (declaration) {
            is KtNamedFunction -> DeclaredName.Kind.FUNCTION
            is KtProperty -> DeclaredName.Kind.PROPERTY
            is KtClassOrObject -> DeclaredName.Kind.CLASS
            is KtTypeAlias -> DeclaredName.Kind.TYPEALIAS
            else -> return null
        }
        val inferred = when (declaration) {
            is KtNamedFunction -> declaration.typeReference == null && !declaration.hasBlockBody() && declaration.hasBody()
            is KtProperty -> declaration.typeReference == null
            else -> false
        }
        val range = declaration.textRange
        return DeclaredName(
            name = name,
            kind = kind,
            header = header(declaration, source),
            inferredType = inferred,
            isInline = (declaration as? KtCallableDeclaration)?.hasModifier(KtTokens.INLINE_KEYWORD) == true,
            isOperator = declaration is KtNamedFunction && declaration.hasModifier(KtTokens.OPERATOR_KEYWORD),
            range = source.range(range.startOffset, range.endOffset),
        )
    }

    /** The text of [declaration] up to its body: what a later snippet is told it declared. */
    private fun header(declaration: KtDeclaration, source: SourceText): String {
        val bodyStart = when (declaration) {
            is KtNamedFunction -> declaration.equalsToken?.textRange?.startOffset ?: declaration.bodyExpression?.textRange?.startOffset
            // a property's header ends before its initializer or its accessors (the provided properties' getters)
            is KtProperty ->
                declaration.initializer?.let { declaration.equalsToken?.textRange?.startOffset }
                    ?: declaration.accessors.firstOrNull()?.textRange?.startOffset
            else -> null
        }
        // a property's header leaves out its annotations (the prelude's @Suppress and @get:JvmName)
        val start =
            (declaration as? KtProperty)?.modifierList?.annotationEntries?.lastOrNull()?.let {
                declaration.valOrVarKeyword.textRange.startOffset
            }
                ?: declaration.textRange.startOffset
        return source.text.substring(start, bodyStart ?: declaration.textRange.endOffset).trim()
    }
}
