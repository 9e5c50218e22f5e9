package org.kotlinllm.script.internal.routing

import io.github.oshai.kotlinlogging.KotlinLogging
import java.io.OutputStream
import java.io.PrintStream
import java.nio.ByteBuffer
import java.nio.CharBuffer
import java.nio.charset.CharsetDecoder
import java.nio.charset.CodingErrorAction
import java.util.concurrent.CopyOnWriteArrayList

private val logger = KotlinLogging.logger {}

/** Where the text a session's code prints goes. */
internal interface OutputTarget {
    /** Called with [STDOUT] or [STDERR] and text decoded so far, in the order it was printed. */
    fun write(stream: String, text: String)

    companion object {
        const val STDOUT: String = "stdout"
        const val STDERR: String = "stderr"
    }
}

/**
 * Routes `System.out` and `System.err` to the session whose code is printing: the session's thread and its
 * coroutines carry the target in [current]; threads that carry none (e.g. ones a snippet started) print to the only
 * capturing session when there is exactly one, else to the process's own streams.
 */
internal object OutputRouting {

    val current: ThreadLocal<OutputTarget?> = ThreadLocal()
    private val capturing = CopyOnWriteArrayList<OutputTarget>()

    @Volatile
    private var installed = false

    /** Output of the compiler on a session's thread (it prints some internal failures): to the log, never to users. */
    val compilerLog: OutputTarget = object : OutputTarget {
        override fun write(stream: String, text: String) {
            logger.debug { "the compiler printed to $stream: ${text.trimEnd()}" }
        }
    }

    fun register(target: OutputTarget) {
        install()
        capturing += target
    }

    /** Runs [block] with what this thread prints going to [compilerLog]. */
    fun <T> toCompilerLog(block: () -> T): T {
        install()
        val previous = current.get()
        current.set(compilerLog)
        try {
            return block()
        } finally {
            current.set(previous)
        }
    }

    fun unregister(target: OutputTarget) {
        capturing -= target
    }

    private fun targetOfThisThread(): OutputTarget? {
        val own = current.get()
        if (own === compilerLog || (own != null && own in capturing)) return own
        return capturing.singleOrNull()
    }

    /**
     * For InputRouting, which reads System.in from the session this thread prints to: the session whose code runs
     * on this thread (the target of its output), null for none.
     */
    fun sessionOfThisThread(): OutputTarget? = targetOfThisThread().takeIf { it !== compilerLog }

    /** Whether any session captures its code's output. */
    val anyCapturing: Boolean get() = capturing.isNotEmpty()

    @Synchronized
    private fun install() {
        if (installed) return
        // an SLF4J provider that keeps the streams it found (slf4j-simple's cacheOutputStream) must find the real ones
        org.slf4j.LoggerFactory.getILoggerFactory()
        System.setOut(PrintStream(RoutingStream(OutputTarget.STDOUT, System.out), true, Charsets.UTF_8))
        System.setErr(PrintStream(RoutingStream(OutputTarget.STDERR, System.err), true, Charsets.UTF_8))
        installed = true
    }

    private class RoutingStream(private val stream: String, private val fallback: PrintStream) : OutputStream() {

        private val decoders = HashMap<OutputTarget, CharsetDecoder>()

        /** Bytes of a character split across two writes, kept until the rest arrives. */
        private val leftovers = HashMap<OutputTarget, ByteArray>()

        override fun write(b: Int) = write(byteArrayOf(b.toByte()), 0, 1)

        @Synchronized
        override fun write(bytes: ByteArray, offset: Int, length: Int) {
            val target = targetOfThisThread()
            if (target == null) {
                fallback.write(bytes, offset, length)
                return
            }
            val decoder = decoders.getOrPut(target) {
                Charsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
            }
            val leftover = leftovers.remove(target)
            val input = if (leftover == null) ByteBuffer.wrap(bytes, offset, length)
            else ByteBuffer.wrap(leftover + bytes.copyOfRange(offset, offset + length))
            val output = CharBuffer.allocate(input.remaining() + 1)
            decoder.decode(input, output, false)
            if (input.hasRemaining()) leftovers[target] = ByteArray(input.remaining()).also { input.get(it) }
            output.flip()
            if (output.hasRemaining()) target.write(stream, output.toString())
        }

        override fun flush() = fallback.flush()
    }
}
