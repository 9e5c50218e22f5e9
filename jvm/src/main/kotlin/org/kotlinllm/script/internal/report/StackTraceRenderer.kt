package org.kotlinllm.script.internal.report

import org.kotlinllm.script.diagnostics.DiagnosticRenderer

/**
 * Renders an exception thrown by a snippet in the form of the specification: `ExceptionClass: message`, then only
 * the frames of snippets as `  at check(snippet1.kts:2)` each followed by `  | ` and its source line, lambdas folded
 * into the function holding them, repeated recursion collapsed, and causes the same way under `Caused by:`.
 */
internal class StackTraceRenderer(private val sources: SnippetSources) {

    private data class Frame(val function: String, val fileName: String, val line: Int, val jvmMethod: String)

    fun render(error: Throwable): String = buildString {
        val seen = HashSet<Throwable>()
        var current: Throwable? = error
        var first = true
        while (current != null && seen.add(current)) {
            val cause = current.cause
            // kotlinx.coroutines recovers stack traces by rethrowing a copy whose cause is the original
            if (!first && isRecoveredCopy(current, seen)) {
                current = cause
                continue
            }
            if (!first) append("\nCaused by: ")
            append(SnippetNames.header(current))
            appendFrames(this, snippetFrames(current))
            first = false
            current = cause
        }
    }

    /** Whether [error] or one of its causes went through code of the snippets, so that [render] shows a frame. */
    fun hasSnippetFrames(error: Throwable): Boolean {
        val seen = HashSet<Throwable>()
        var current: Throwable? = error
        while (current != null && seen.add(current)) {
            if (snippetFrames(current).isNotEmpty()) return true
            current = current.cause
        }
        return false
    }

    /**
     * The top [limit] of [frames] (a running thread's) down to the first of a snippet, which tells the line it runs:
     * a snippet's frame as [render] names it (`check(snippet1.kts:2)`), any other as the JVM does, without its module.
     */
    fun topFrames(frames: Array<StackTraceElement>, limit: Int): List<String> {
        val top = frames.take(limit)
        val firstOfSnippet = top.indexOfFirst(::isSnippetFrame)
        return (if (firstOfSnippet < 0) top else top.subList(0, firstOfSnippet + 1)).map(::describe)
    }

    private fun describe(element: StackTraceElement): String {
        val fileName = element.fileName
        val method = "${element.className}.${element.methodName}"
        return when {
            isSnippetFrame(element) -> {
                val function = SnippetNames.function(element.className, element.methodName)
                "$function($fileName:${sources.snippetLine(element.className, element.lineNumber)})"
            }
            element.isNativeMethod -> "$method(Native Method)"
            fileName == null -> "$method(Unknown Source)"
            element.lineNumber > 0 -> "$method($fileName:${element.lineNumber})"
            else -> "$method($fileName)"
        }
    }

    /** The snippet frames of [stack] (a thread's, innermost first) rendered as [render] shows them, without a header. */
    fun renderFrames(stack: List<StackTraceElement>): String =
        buildString { appendFrames(this, snippetFrames(stack)) }.removePrefix("\n")

    /** Whether [element] is a frame of a snippet's code. */
    fun isSnippetFrame(element: StackTraceElement): Boolean =
        element.fileName?.let(sources::source) != null && element.lineNumber > 0

    private fun isRecoveredCopy(cause: Throwable, seen: Set<Throwable>): Boolean =
        seen.any { it !== cause && it.javaClass == cause.javaClass && it.message == cause.message && it.cause === cause }

    private fun snippetFrames(error: Throwable): List<Frame> = snippetFrames(error.stackTrace.asList())

    private fun snippetFrames(stack: List<StackTraceElement>): List<Frame> = stack.mapNotNull { element ->
        if (!isSnippetFrame(element)) return@mapNotNull null
        val fileName = element.fileName ?: return@mapNotNull null
        Frame(
            function = SnippetNames.function(element.className, element.methodName),
            fileName = fileName,
            line = sources.snippetLine(element.className, element.lineNumber),
            jvmMethod = "${element.className}.${element.methodName}",
        )
    }.let(::foldLambdas)

    /** A lambda's frame followed by the frame of the function holding it, at the same line, shows once. */
    private fun foldLambdas(frames: List<Frame>): List<Frame> {
        val folded = ArrayList<Frame>(frames.size)
        for (frame in frames) {
            val previous = folded.lastOrNull()
            if (previous != null && previous.jvmMethod != frame.jvmMethod && previous.function == frame.function &&
                previous.fileName == frame.fileName && previous.line == frame.line
            ) continue
            folded += frame
        }
        return folded
    }

    private fun appendFrames(out: StringBuilder, frames: List<Frame>) {
        var index = 0
        while (index < frames.size) {
            val (period, repeats) = repetitionAt(frames, index)
            for (frame in frames.subList(index, index + period)) appendFrame(out, frame)
            if (repeats > 1) {
                val more = repeats - 1
                val times = if (more == 1) "time" else "times"
                out.append("\n  ... ")
                out.append(if (period == 1) "the frame above repeats" else "the $period frames above repeat")
                out.append(" $more more $times")
            }
            index += period * repeats
        }
    }

    private fun appendFrame(out: StringBuilder, frame: Frame) {
        out.append("\n  at ").append(frame.function).append('(').append(frame.fileName).append(':').append(frame.line).append(')')
        sources.source(frame.fileName)?.line(frame.line)?.let { out.append('\n').append(DiagnosticRenderer.SOURCE_PREFIX).append(it) }
    }

    /** The shortest block of frames starting at [start] that repeats at least 3 times in a row, or a single frame. */
    private fun repetitionAt(frames: List<Frame>, start: Int): Pair<Int, Int> {
        for (period in 1..MAX_RECURSION_PERIOD) {
            var repeats = 1
            while (start + period * (repeats + 1) <= frames.size &&
                (0 until period).all { frames[start + it] == frames[start + period * repeats + it] }
            ) {
                repeats++
            }
            if (repeats >= 3) return period to repeats
        }
        return 1 to 1
    }

    private companion object {
        const val MAX_RECURSION_PERIOD = 8
    }
}
