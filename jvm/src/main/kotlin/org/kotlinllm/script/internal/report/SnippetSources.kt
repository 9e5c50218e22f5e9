package org.kotlinllm.script.internal.report

import org.jetbrains.org.objectweb.asm.ClassReader
import org.jetbrains.org.objectweb.asm.ClassVisitor
import org.jetbrains.org.objectweb.asm.Opcodes
import org.kotlinllm.script.diagnostics.SourceText
import java.util.concurrent.ConcurrentHashMap

/**
 * The sources of a session's snippets by file name, and for their classes the line mappings of inlined code
 * (the `KotlinDebug` stratum of the SMAP), so a frame inside an inlined function points at the line that called it.
 */
internal class SnippetSources {

    // read by threads the snippets started, which render their errors and locate their displays
    private val sources = ConcurrentHashMap<String, SourceText>()
    private val inlinedLines = ConcurrentHashMap<String, Map<Int, Int>>()

    fun add(fileName: String, source: SourceText, classFiles: Map<String, ByteArray>) {
        sources[fileName] = source
        for ((path, bytes) in classFiles) {
            if (!path.endsWith(".class")) continue
            val mapping = callSiteLines(bytes)
            if (mapping.isNotEmpty()) inlinedLines[path.removeSuffix(".class").replace('/', '.')] = mapping
        }
    }

    fun source(fileName: String?): SourceText? = fileName?.let { sources[it] }

    /** The snippet line of [line] in [className]: itself, or the call site of the inlined code it belongs to. */
    fun snippetLine(className: String, line: Int): Int = inlinedLines[className]?.get(line) ?: line

    private fun callSiteLines(bytes: ByteArray): Map<Int, Int> {
        var debug: String? = null
        try {
            ClassReader(bytes).accept(
                object : ClassVisitor(Opcodes.ASM9) {
                    override fun visitSource(source: String?, debugInfo: String?) {
                        debug = debugInfo
                    }
                },
                ClassReader.SKIP_CODE or ClassReader.SKIP_FRAMES,
            )
        } catch (_: RuntimeException) {
            return emptyMap()
        }
        return debug?.let(::parseKotlinDebugStratum).orEmpty()
    }

    /**
     * Reads the `*S KotlinDebug` section of an SMAP: lines like `3#1:6,2` say that output lines 6 and 7 were
     * inlined at input line 3.
     */
    private fun parseKotlinDebugStratum(smap: String): Map<Int, Int> {
        val lines = smap.lines()
        val start = lines.indexOfFirst { it.trim() == "*S KotlinDebug" }
        if (start < 0) return emptyMap()
        val mapping = HashMap<Int, Int>()
        var inLines = false
        for (line in lines.drop(start + 1)) {
            val trimmed = line.trim()
            when {
                trimmed == "*L" -> inLines = true
                trimmed.startsWith("*E") || trimmed.startsWith("*S") -> break
                trimmed.startsWith("*") -> inLines = false
                inLines -> LINE_ENTRY.matchEntire(trimmed)?.let { match ->
                    val input = match.groupValues[1].toInt()
                    val output = match.groupValues[3].toInt()
                    val count = (match.groupValues[5].ifEmpty { null } ?: match.groupValues[2].removePrefix(",").ifEmpty { "1" }).toInt()
                    for (offset in 0 until count) mapping[output + offset] = input
                }
            }
        }
        return mapping
    }

    private companion object {
        /** `in#file[,repeat]:out[,increment]` */
        val LINE_ENTRY = Regex("""(\d+)(?:#\d+)?(,\d+)?:(\d+)(,(\d+))?""")
    }
}
