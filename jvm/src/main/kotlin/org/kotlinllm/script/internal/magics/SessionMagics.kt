package org.kotlinllm.script.internal.magics

import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.internal.compiler.source.NotebookMagics
import org.kotlinllm.script.runtime.DeclarationListing
import org.kotlinllm.script.runtime.SessionVars
import java.io.File

/**
 * The line magics and REPL commands of JetBrains' Kotlin kernel in one session: what a snippet's magic lines do
 * ([read]), a cell that is a command ([command]), and what the magics turned on do as each later snippet compiles
 * ([compiling]) and runs ([evaluating]). Used on the session's thread only.
 */
internal class SessionMagics(
    /** The jars the session added to its classpath so far. */
    private val addedJars: () -> List<File>,
    private val declarations: DeclarationListing,
) : AutoCloseable {
    private val options = MagicOptions()
    private val spark = SparkClasses()

    /**
     * What the magic [lines] of a snippet do: the lines to blank for the compiler, their notices (warnings), the
     * errors of those this kernel does not know (a command among other code is one), and their changes to [apply]
     * if the snippet goes on.
     */
    class Reading(
        val blanked: List<NotebookMagics.Line>,
        val notes: List<Diagnostic>,
        val errors: List<Diagnostic>,
        private val changes: List<() -> Unit>,
    ) {
        fun apply() = changes.forEach { it() }
    }

    fun read(lines: List<NotebookMagics.Line>): Reading {
        val notes = mutableListOf<Diagnostic>()
        val errors = mutableListOf<Diagnostic>()
        val changes = mutableListOf<() -> Unit>()
        for (line in lines) {
            val effect = if (line.sign == '%') LineMagics.effect(line.name, line.arguments, options, spark) else null
            if (effect == null) {
                errors += NotebookMagics.refused(line, known = line.sign == ':' && line.name in ReplCommands.names)
                continue
            }
            effect.notice?.let { notes += Diagnostic(Severity.WARNING, it, line.range) }
            changes += effect.change
        }
        return Reading(lines, notes, errors, changes)
    }

    fun hasCommand(name: String): Boolean = name in ReplCommands.names

    /** The value of the REPL command [name] (`:help`: its text); null for one this kernel does not have. */
    fun command(name: String): Any? = when (name) {
        "help" -> ReplCommands.help()
        "classpath" -> ReplCommands.classpath(classpath())
        "vars" -> SessionVars(declarations.listing())
        else -> null
    }

    /** Shows the [code] of a snippet about to compile when `%trackExecution` asks for it ([generated]: the engine's). */
    fun compiling(code: String, generated: Boolean) {
        val shows = when (options.tracking) {
            ExecutionTracking.OFF -> false
            ExecutionTracking.ALL -> true
            ExecutionTracking.GENERATED -> generated
        }
        if (!shows || code.isBlank()) return
        // the blanked magic lines stay as empty lines, so the lines keep the numbers the snippet's messages give
        println("Executing:\n" + code.lines().joinToString("\n") { if (it.isBlank()) "" else it }.trimEnd())
    }

    /**
     * A snippet compiled to [classFiles] is about to run, having added [addedClasspath] to the session's classpath:
     * its classes are written for Spark and the jars listed, when those magics are on.
     */
    fun evaluating(classFiles: Map<String, ByteArray>, addedClasspath: List<File>) {
        spark.write(classFiles)
        if (options.trackClasspath && addedClasspath.isNotEmpty()) print(ReplCommands.added(addedClasspath, classpath().size))
    }

    private fun classpath(): List<File> = (ReplCommands.hostClasspath() + addedJars()).distinct()

    override fun close() = spark.close()
}
