package org.kotlinllm.script.internal.compiler.source

import org.jetbrains.kotlin.com.intellij.psi.util.PsiTreeUtil
import org.jetbrains.kotlin.lexer.KtTokens
import org.jetbrains.kotlin.psi.KtModifierList

/**
 * `internal` declarations, as a notebook's user means them: visible to every snippet of the session, which is one
 * module to them. The K2 REPL compiles each snippet as a module of its own and mangles that module's name into the
 * JVM names of internal members (`getX$snippet1_kts`), while a later snippet calls them by the default module's name
 * (`getX$main`), or a top-level one as a member of no class: each such use failed at run time with a
 * `NoSuchMethodError`. So each `internal` modifier is compiled commented out, which makes the declaration public,
 * with the snippet's lines and columns kept (see [SnippetRewrite]). One beside `@PublishedApi` stays: that
 * annotation applies to internal declarations only.
 */
// No public KT issue found: on 2.4.21 an internal member's JVM name has its snippet's module (getX$snippet1_kts), a call main's.
internal object InternalModifiers {

    private const val PUBLISHED_API = "PublishedApi"

    /** The insertions that comment out the `internal` modifiers of [parsed]; none when it has none. */
    fun insertions(parsed: ParsedSnippet): List<SnippetRewrite.Insertion> {
        if (!parsed.source.text.contains(KtTokens.INTERNAL_KEYWORD.value)) return emptyList()
        return PsiTreeUtil.collectElementsOfType(parsed.file, KtModifierList::class.java)
            .filter { list -> list.annotationEntries.none { it.shortName?.asString() == PUBLISHED_API } }
            .mapNotNull { it.getModifier(KtTokens.INTERNAL_KEYWORD) }
            .flatMap { modifier ->
                listOf(
                    SnippetRewrite.Insertion(modifier.textRange.startOffset, "/*"),
                    SnippetRewrite.Insertion(modifier.textRange.endOffset, "*/"),
                )
            }
    }
}
