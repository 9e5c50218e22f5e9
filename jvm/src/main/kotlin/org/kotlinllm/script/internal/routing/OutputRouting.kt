package org.kotlinllm.script.internal.routing

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.runtime.OutputTarget
import org.kotlinllm.script.runtime.SessionContext
import java.io.OutputStream
import java.io.PrintStream
import java.nio.ByteBuffer
import java.nio.CharBuffer
import java.nio.charset.CharsetDecoder
import java.nio.charset.CodingErrorAction

private val logger = KotlinLogging.logger {}

/**
 * Routes `System.out` and `System.err` to the session whose code is printing, the one [SessionContext.currentOrSole]
 * finds: the session's thread, the threads its code starts and its coroutines carry their session; other threads
 * print to the only capturing session when there is exactly one, else to the process's own streams.
 */
internal object OutputRouting {

    /** Set while the compiler runs on this thread: not a session's code, so not the session's output. */
    private val compiling = ThreadLocal<Boolean>()

    @Volatile
    private var installed = false

    /** Output of the compiler on a session's thread (it prints some internal failures): to the log, never to users. */
    private val compilerLog: OutputTarget = object : OutputTarget {
        override fun write(stream: String, text: String) {
            logger.debug { "the compiler printed to $stream: ${text.trimEnd()}" }
        }
    }

    /** Runs [block] with what this thread prints going to the log. */
    fun <T> toCompilerLog(block: () -> T): T {
        install()
        val previous = compiling.get()
        compiling.set(true)
        try {
            return block()
        } finally {
            compiling.set(previous)
        }
    }

    private fun targetOfThisThread(): OutputTarget? =
        if (compiling.get() == true) compilerLog else SessionContext.currentOrSole()?.output

    /** Replaces `System.out` and `System.err` by the routing streams, once: before a session captures its output. */
    @Synchronized
    fun install() {
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
