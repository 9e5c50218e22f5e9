package org.kotlinllm.script.internal.magics

import org.kotlinllm.script.internal.compiler.source.UseMagic
import java.io.File

/**
 * The texts of the REPL commands of JetBrains' Kotlin kernel (`:help`, `:classpath`; `:vars` is `vars()`) and of
 * `%trackClasspath`, in that kernel's words where they name the same thing.
 */
internal object ReplCommands {

    /** Their names, in the order `:help` lists them. */
    val names: List<String> = listOf("help", "classpath", "vars")

    /** The JVM's own classpath, which the snippets see before any library is added. */
    fun hostClasspath(): List<File> =
        System.getProperty("java.class.path").orEmpty().split(File.pathSeparator).filter { it.isNotEmpty() }.map(::File)

    /** `:classpath`: the header, then one entry per line. */
    fun classpath(entries: List<File>): String =
        "Current classpath (${entries.size} paths):" + entries.joinToString("") { "\n${it.path}" }

    /** What `%trackClasspath` prints after a snippet added [added] to the session's classpath, [size] entries now. */
    fun added(added: List<File>, size: Int): String =
        "${added.size} new paths were added to classpath:\n" + added.map { it.path }.sorted().joinToString("") { "$it\n" } +
            "Current classpath size: $size\n"

    /** `:help`: this kernel's versions, its commands and magics. */
    fun help(): String = HELP.trimMargin().replace("KOTLIN", KotlinVersion.CURRENT.toString())
        .replace("JAVA", Runtime.version().toString())
        .replace("LIBRARIES", UseMagic.names.joinToString(", "))

    private const val HELP = """
        |Kotlin KOTLIN on Java JAVA (kotlin-llm kernel)
        |
        |Commands (a cell of its own):
        |    :help - this text
        |    :classpath - the session's classpath, one entry per line
        |    :vars - the session's declarations with their types and values, as vars() lists them
        |
        |Magics (a line of their own, at a cell's top level):
        |    %use - loads libraries by name, with their default imports: %use dataframe, lets-plot(4.5.0)
        |        Libraries: LIBRARIES
        |    %trackExecution - shows the code of each later cell before it runs ("Executing:")
        |        Usage: %trackExecution [all/generated/off]
        |    %trackClasspath - lists the jars each later cell adds to the classpath
        |        Usage: %trackClasspath [on/off]
        |    %dumpClassesForSpark - writes the later cells' classes to the directory of the system property spark.repl.class.outputDir
        |        Usage: %dumpClassesForSpark [on/off]
        |    %output, %logLevel, %logHandler, %useLatestDescriptors - accepted with a notice: nothing to set here
        |
        |@file:DependsOn("group:artifact:version") adds a library by its Maven coordinates; DISPLAY, HTML and Image show rich output.
    """
}
