package org.kotlinllm.script.internal.routing

import org.kotlinllm.script.runtime.InputSource
import org.kotlinllm.script.runtime.PasswordInput
import org.kotlinllm.script.runtime.SessionContext
import org.kotlinllm.script.runtime.StdinNotAllowedException
import java.io.InputStream
import java.nio.charset.Charset
import java.util.Objects
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ExecutionException
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.locks.ReentrantLock
import kotlin.concurrent.withLock

/** A session host that answers reads of `System.in` by its code. */
internal interface InputHost {
    val input: SessionInput
}

/**
 * The input of one session: a read of `System.in` by its code asks the host for a line ([request], a request id the
 * host answers with [answer]) when the host allowed input for the running snippet, and fails at once otherwise.
 * Each answer is served with a `"\n"`, so a line reader needs one request per line; a null answer is the end of
 * input. A request still waiting when its snippet settles, or when the session closes, fails.
 */
internal class SessionInput(
    /** Leaves the time a read waits for its answer out of the snippet's run time. */
    private val clock: RunClock = RunClock(),
    private val request: (snippetNumber: Int, requestId: Long, prompt: String, password: Boolean) -> Unit,
) : InputSource {
    private class Pending(val snippetNumber: Int, val answer: CompletableFuture<String?> = CompletableFuture())

    private val ids = AtomicLong()
    private val pending = ConcurrentHashMap<Long, Pending>()

    /** Guards [allowed], [running] and [closed]. */
    private val state = Any()
    private val allowed = HashSet<Int>()
    private var running: Int? = null
    private var closed = false

    /** The bytes of the last answered line not read yet; guarded by [bufferLock], held while a read waits. */
    private val bufferLock = ReentrantLock()
    private var line = ByteArray(0)
    private var position = 0

    /** Whether snippet [number], not started yet, may read input. */
    fun allow(number: Int, allow: Boolean) {
        synchronized(state) { if (allow) allowed += number else allowed -= number }
    }

    fun snippetStarts(number: Int) {
        synchronized(state) { running = number }
    }

    /** Snippet [number] has ended: reads of its code that still wait fail, and later ones fail at once. */
    fun snippetSettled(number: Int) {
        synchronized(state) {
            allowed -= number
            if (running == number) running = null
        }
        withdraw(WITHDRAWN) { it.snippetNumber == number }
    }

    /** Answers request [requestId] with [value] (null: end of input); an unknown or withdrawn request is ignored. */
    fun answer(requestId: Long, value: String?) {
        pending[requestId]?.answer?.complete(value)
    }

    fun close() {
        synchronized(state) { closed = true }
        withdraw(CLOSED) { true }
    }

    private fun withdraw(reason: String, which: (Pending) -> Boolean) {
        for (waiting in pending.values) if (which(waiting)) waiting.answer.completeExceptionally(StdinNotAllowedException(reason))
    }

    /**
     * Asks the host for one line (without its line end) for the code on this thread; null at the end of input.
     * Throws [StdinNotAllowedException] when it cannot be answered, [InterruptedException] when the thread is
     * interrupted (the snippet cancelled) while it waits; either withdraws the request.
     */
    override fun readLine(prompt: String, password: Boolean): String? {
        val id = ids.incrementAndGet()
        val waiting = synchronized(state) {
            if (closed) throw StdinNotAllowedException(CLOSED)
            val number = running ?: throw StdinNotAllowedException(NO_SNIPPET)
            if (number !in allowed) throw StdinNotAllowedException(NOT_ALLOWED)
            Pending(number).also { pending[id] = it }
        }
        try {
            // what the snippet printed before reading (its prompt) comes before the request
            System.out.flush()
            System.err.flush()
            // the wait counts from before the request: once the host sees it, the snippet's clock stands still
            return clock.waiting {
                request(waiting.snippetNumber, id, prompt, password)
                try {
                    waiting.answer.get()
                } catch (e: ExecutionException) {
                    throw StdinNotAllowedException(e.cause?.message ?: WITHDRAWN)
                } catch (_: InterruptedException) {
                    throw InterruptedException("the snippet was cancelled while it waited for input")
                }
            }
        } finally {
            pending.remove(id)
        }
    }

    /** Serves the rest of the last line, or asks for the next; -1 at the end of input. */
    override fun read(bytes: ByteArray, offset: Int, length: Int): Int {
        bufferLock.lockInterruptibly()
        try {
            if (position >= line.size) {
                val answer = readLine("", password = false) ?: return -1
                line = (answer + "\n").toByteArray(Charset.defaultCharset())
                position = 0
            }
            val count = minOf(length, line.size - position)
            System.arraycopy(line, position, bytes, offset, count)
            position += count
            return count
        } finally {
            bufferLock.unlock()
        }
    }

    /** The bytes that can be read without asking the host: the rest of the last line. */
    override fun available(): Int = if (bufferLock.tryLock()) {
        try {
            line.size - position
        } finally {
            bufferLock.unlock()
        }
    } else {
        0
    }

    companion object {
        const val NOT_ALLOWED: String = "this cell cannot read input: the client did not allow stdin (allow_stdin=false, as in " +
            "headless runs such as nbclient and papermill; in the Python API, SessionOptions(stdin=None)); put the input " +
            "in the code instead"
        const val NO_SNIPPET: String = "this code cannot read input: no cell is running (a launched coroutine or a thread " +
            "read System.in after its cell ended); read input while the cell runs"
        const val WITHDRAWN: String = "the cell ended while this read waited for input"
        const val CLOSED: String = "the session was closed, so this read cannot get input"
        const val NO_SESSION: String = "this thread cannot read input: it belongs to no session and several are open " +
            "(input goes to a cell, its coroutines, and the threads it starts while it is the only session)"
    }
}

/**
 * Routes `System.in` to the session whose code reads, as [OutputRouting] routes `System.out`: the session's thread,
 * the threads its code starts and its coroutines read from their own session, other threads from the only capturing
 * session when there is exactly one. Installed once, before the first snippet of any host session, since a `Scanner`
 * or `BufferedReader` keeps the stream it was given; while no host session captures output, and for a session on the
 * process's streams, reads go to the process's own `System.in`.
 */
internal object InputRouting {

    @Volatile
    private var installed = false

    @Synchronized
    fun install() {
        if (installed) return
        System.setIn(RoutingInputStream(System.`in`))
        PasswordInput.fromHost = ::readPassword
        installed = true
    }

    /** The input of the session whose code runs on this thread; null for the process's own `System.in`. */
    private fun sessionInput(): InputSource? {
        if (!SessionContext.anyCapturing) return null
        val context = SessionContext.currentOrSole() ?: throw StdinNotAllowedException(SessionInput.NO_SESSION)
        return context.input
    }

    /** A password for `readPassword`: from the host of the session, else (no host session's code) from the console. */
    private fun readPassword(prompt: String): String? {
        val input = sessionInput() ?: return PasswordInput.fromConsole(prompt)
        return input.readLine(prompt, password = true)
    }

    private class RoutingInputStream(private val fallback: InputStream) : InputStream() {

        override fun read(): Int {
            val one = ByteArray(1)
            return if (read(one, 0, 1) == 1) one[0].toInt() and 0xff else -1
        }

        override fun read(bytes: ByteArray, offset: Int, length: Int): Int {
            Objects.checkFromIndexSize(offset, length, bytes.size)
            if (length == 0) return 0
            val input = sessionInput() ?: return fallback.read(bytes, offset, length)
            return input.read(bytes, offset, length)
        }

        override fun available(): Int {
            if (!SessionContext.anyCapturing) return fallback.available()
            val context = SessionContext.currentOrSole() ?: return 0
            return context.input?.available() ?: fallback.available()
        }
    }
}
