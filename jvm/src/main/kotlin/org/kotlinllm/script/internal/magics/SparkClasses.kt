package org.kotlinllm.script.internal.magics

import io.github.oshai.kotlinlogging.KotlinLogging
import java.io.File
import java.io.IOException
import java.nio.file.Files

private val logger = KotlinLogging.logger {}

/**
 * `%dumpClassesForSpark`: the class files of every snippet compiled from then on are written to a directory named by
 * the system property `spark.repl.class.outputDir`, where Spark's executors load a REPL's classes from, as
 * JetBrains' kernel does; Spark's own integration turns it on as it loads.
 */
internal class SparkClasses : AutoCloseable {
    private var directory: File? = null
    private var on = false

    /** Writes the later snippets' classes ([on]) or stops writing them; the property is set as it starts. */
    fun writing(on: Boolean) {
        this.on = on
        if (!on) return
        val target = directory ?: Files.createTempDirectory("kotlin-llm-spark-classes").toFile().also { directory = it }
        System.setProperty(PROPERTY, target.absolutePath)
    }

    /** Writes [classFiles] (by their paths in the module) to the directory, when writing. */
    fun write(classFiles: Map<String, ByteArray>) {
        val target = directory?.takeIf { on } ?: return
        for ((path, bytes) in classFiles) {
            if (!path.endsWith(".class")) continue
            val file = File(target, path)
            try {
                file.parentFile.mkdirs()
                file.writeBytes(bytes)
            } catch (e: IOException) {
                // Spark then misses this class, as it would with JetBrains' kernel; the snippet runs all the same
                logger.warn(e) { "could not write $file for Spark" }
            }
        }
    }

    override fun close() {
        val target = directory ?: return
        if (System.getProperty(PROPERTY) == target.absolutePath) System.clearProperty(PROPERTY)
        target.deleteRecursively()
    }

    internal companion object {
        const val PROPERTY: String = "spark.repl.class.outputDir"
    }
}
