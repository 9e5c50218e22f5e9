package org.kotlinllm.script.host

import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.DiagnosticRenderer
import org.kotlinllm.script.diagnostics.Severity

/**
 * One diagnostic of a snippet as data, for a program to act on without reading the report: what the report's
 * `snippetN.kts:line:column: severity: message` line says, and what would fix it.
 *
 * @property severity `error` or `warning`.
 * @property name the compiler's name of the diagnostic (`UNRESOLVED_REFERENCE`); null for the engine's own (a
 *   `%use` or dependency problem, a version note).
 * @property message the message as the report's first line gives it.
 * @property startLine 1-based, as the report's location (0 with [startColumn], [endLine] and [endColumn] when it
 *   has none); columns count UTF-16 code units, the end is exclusive.
 * @property imports imports that would make a name resolve, best first (`java.time.LocalDate`).
 * @property names the names most likely meant by a misspelt one, best first.
 * @property dependency a `@file:DependsOn` coordinate that would bring a missing library (`io.ktor:ktor-client-core`).
 * @property hint the report's `hint:` line for it, without `hint: `; null when it has none.
 * @property followers how many errors that follow from this one the report leaves out.
 */
public class HostDiagnostic(
    public val severity: String,
    public val name: String?,
    public val message: String,
    public val startLine: Int,
    public val startColumn: Int,
    public val endLine: Int,
    public val endColumn: Int,
    public val imports: List<String>,
    public val names: List<String>,
    public val dependency: String?,
    public val hint: String?,
    public val followers: Int,
) {
    override fun toString(): String = "$startLine:$startColumn: $severity: ${name?.let { "[$it] " }.orEmpty()}$message"

    internal companion object {
        fun of(diagnostic: Diagnostic): HostDiagnostic {
            val range = diagnostic.range
            return HostDiagnostic(
                // two severities, as documented: the compiler's rare `info` reads as a warning
                severity = if (diagnostic.severity == Severity.ERROR) Severity.ERROR.label else Severity.WARNING.label,
                name = diagnostic.name,
                message = diagnostic.message,
                startLine = range?.startLine ?: 0,
                startColumn = range?.startColumn ?: 0,
                endLine = range?.endLine ?: 0,
                endColumn = range?.endColumn ?: 0,
                imports = diagnostic.fixes.imports,
                names = diagnostic.fixes.names,
                dependency = diagnostic.fixes.dependency,
                hint = diagnostic.hint ?: DiagnosticRenderer.hint(diagnostic.fixes),
                followers = diagnostic.followers,
            )
        }
    }
}
