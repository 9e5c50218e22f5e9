package org.kotlinllm.script.internal.compiler.source

import org.jetbrains.kotlin.psi.KtEscapeStringTemplateEntry
import org.jetbrains.kotlin.psi.KtFile
import org.jetbrains.kotlin.psi.KtLiteralStringTemplateEntry
import org.jetbrains.kotlin.psi.KtStringTemplateExpression
import org.jetbrains.kotlin.psi.ValueArgument
import org.kotlinllm.script.dependencies.DeclarationProblem
import org.kotlinllm.script.dependencies.DeclaredAnnotations
import org.kotlinllm.script.dependencies.DeclaredAnnotations.Companion.DEPENDS_ON
import org.kotlinllm.script.dependencies.DeclaredAnnotations.Companion.REPOSITORY
import org.kotlinllm.script.dependencies.DeclaredValue
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.diagnostics.SourceText

/** Reads the `@file:DependsOn` and `@file:Repository` annotations of a snippet from its PSI, without compiling it. */
internal object DependencyAnnotations {
    private const val OPTIONS = "options"

    fun read(file: KtFile): DeclaredAnnotations {
        val lines = SourceText(file.text)
        val dependencies = mutableListOf<DeclaredValue>()
        val repositories = mutableListOf<DeclaredValue>()
        val problems = mutableListOf<DeclarationProblem>()
        for (entry in file.annotationEntries) {
            val name = entry.shortName?.asString()
            val target = when (name) {
                DEPENDS_ON -> dependencies
                REPOSITORY -> repositories
                else -> continue
            }
            val entryRange = lines.range(entry.textRange.startOffset, entry.textRange.endOffset)
            val (values, options) = entry.valueArguments.partition { it.getArgumentName()?.asName?.asString() != OPTIONS }
            if (options.isNotEmpty()) problems += DeclarationProblem(name, entryRange, isError = false)
            for (argument in values) {
                val range = if (values.size == 1) entryRange else lines.range(argument)
                val literal = literalOf(argument)
                if (literal == null) problems += DeclarationProblem(name, range, isError = true)
                else target += DeclaredValue(literal, range)
            }
        }
        return DeclaredAnnotations(dependencies, repositories, problems)
    }

    private fun literalOf(argument: ValueArgument): String? {
        if (argument.getSpreadElement() != null) return null
        val template = argument.getArgumentExpression() as? KtStringTemplateExpression ?: return null
        if (template.hasInterpolation()) return null
        val parts = template.entries.map { part ->
            when (part) {
                is KtLiteralStringTemplateEntry -> part.text
                is KtEscapeStringTemplateEntry -> part.unescapedValue
                else -> null
            }
        }
        return if (parts.all { it != null }) parts.joinToString("") else null
    }

    private fun SourceText.range(argument: ValueArgument): SourceRange {
        val element = argument.asElement()
        return range(element.textRange.startOffset, element.textRange.endOffset)
    }
}
