package org.kotlinllm.script.internal.magics

/** Which snippets `%trackExecution` shows the code of: none, all, or only the code the engine generates. */
internal enum class ExecutionTracking { OFF, ALL, GENERATED }

/** The settings a session's magics changed; read on the session's thread only. */
internal class MagicOptions {
    var tracking: ExecutionTracking = ExecutionTracking.OFF
    var trackClasspath: Boolean = false
}

/** What one magic line does: the one-line [notice] it gives (null: none), and its change, made if the snippet goes on. */
internal class MagicEffect(val notice: String?, val change: () -> Unit = {})

/**
 * The line magics of JetBrains' Kotlin kernel but `%use` and `%useLatestDescriptors` (UseMagic's): what each does
 * here, or the notice of one that has no meaning here. A magic given arguments it does not take changes nothing and
 * says so; it never fails the snippet.
 */
internal object LineMagics {

    /** Their names, in the order `:help` lists them. */
    val names: List<String> = listOf("trackExecution", "trackClasspath", "dumpClassesForSpark", "output", "logLevel", "logHandler")

    private val logLevels = listOf("off", "error", "warn", "info", "debug", "trace")

    /** The effect of `%[name] [arguments]` on [options] and [spark]; null for a magic this kernel does not know. */
    fun effect(name: String, arguments: String, options: MagicOptions, spark: SparkClasses): MagicEffect? {
        val written = "`%$name${if (arguments.isEmpty()) "" else " $arguments"}`"
        val words = arguments.split(' ', '\t').filter { it.isNotEmpty() }
        return when (name) {
            "trackExecution" -> tracking(words.singleOrEmpty())?.let { mode -> MagicEffect(null) { options.tracking = mode } }
                ?: MagicEffect("$written: expected all, generated or off; tracking is unchanged")
            "trackClasspath" -> flag(words.singleOrEmpty())?.let { on -> MagicEffect(null) { options.trackClasspath = on } }
                ?: MagicEffect("$written: expected on or off; tracking is unchanged")
            "dumpClassesForSpark" -> flag(words.singleOrEmpty())?.let { on -> MagicEffect(null) { spark.writing(on) } }
                ?: MagicEffect("$written: expected on or off; unchanged")
            "output" -> MagicEffect("$written: ignored: $OUTPUT")
            "logLevel" -> MagicEffect(
                if (words.size == 1 && words[0] in logLevels) "$written: ignored: $LOG_LEVEL"
                else "$written: expected ${logLevels.joinToString(", ")}; ignored",
            )
            "logHandler" -> MagicEffect("$written: ignored: $LOG_HANDLERS")
            else -> null
        }
    }

    /** The one word given, "" for none, null for several. */
    private fun List<String>.singleOrEmpty(): String? = if (size > 1) null else firstOrNull().orEmpty()

    // the kernel's older versions wrote the options with a dash (`-generated`), as notebooks still do
    private fun tracking(word: String?): ExecutionTracking? = when (word?.lowercase()?.removePrefix("-")) {
        "", "all", "on" -> ExecutionTracking.ALL
        "generated" -> ExecutionTracking.GENERATED
        "off" -> ExecutionTracking.OFF
        else -> null
    }

    private fun flag(word: String?): Boolean? = when (word?.lowercase()?.removePrefix("-")) {
        "", "on" -> true
        "off" -> false
        else -> null
    }

    /** Why `%output` has nothing to set here. */
    const val OUTPUT: String = "this kernel sends a cell's output as it comes and cuts it past its setting max_output_chars"

    const val LOG_LEVEL: String =
        "the engine's log level is set where its SLF4J provider is configured (the kernel runs it with none), the kernel's by its setting log_level"

    const val LOG_HANDLERS: String = "the engine has no log handlers to manage: it logs through SLF4J"
}
