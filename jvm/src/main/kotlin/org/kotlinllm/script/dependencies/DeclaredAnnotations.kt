package org.kotlinllm.script.dependencies

import org.jetbrains.kotlin.psi.KtEscapeStringTemplateEntry
import org.jetbrains.kotlin.psi.KtFile
import org.jetbrains.kotlin.psi.KtLiteralStringTemplateEntry
import org.jetbrains.kotlin.psi.KtStringTemplateExpression
import org.jetbrains.kotlin.psi.ValueArgument
import org.kotlinllm.script.diagnostics.SourceRange
import org.kotlinllm.script.diagnostics.SourceText

/** One string of a `@file:DependsOn` or `@file:Repository`, with the range that diagnostics about it mark. */
internal data class DeclaredValue(val value: String, val range: SourceRange)

/** An argument that is not a plain string literal, or an option that is not supported. */
internal data class DeclarationProblem(val annotation: String, val range: SourceRange, val isError: Boolean)

/** The `@file:DependsOn` and `@file:Repository` annotations of a snippet, read from its PSI without compiling it. */
internal class DeclaredAnnotations(
    val dependencies: List<DeclaredValue>,
    val repositories: List<DeclaredValue>,
    val problems: List<DeclarationProblem>,
) {
    val isEmpty: Boolean get() = dependencies.isEmpty() && repositories.isEmpty() && problems.isEmpty()

    companion object {
        const val DEPENDS_ON: String = "DependsOn"
        const val REPOSITORY: String = "Repository"
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
}
