package org.kotlinllm.script.dependencies.resolver

import java.util.concurrent.ExecutionException
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicLong
import java.util.concurrent.atomic.AtomicReference
import kotlin.time.Duration

/**
 * Runs a resolution on a worker thread and gives up when no repository was heard from for [silence]: the host's own
 * bound, whatever the transport's timeouts do. The abandoned worker is interrupted and left to end by itself.
 */
internal class SilenceWatchdog(private val silence: Duration) : AutoCloseable {
    private val workers: ExecutorService = Executors.newCachedThreadPool { task ->
        Thread(task, "kotlin-llm-dependency-resolver").apply { isDaemon = true }
    }

    /**
     * The result of [task], which reports each transfer with its repository URL and whether that repository answered;
     * or [onSilence] with the last repository asked, when none answered for [silence] (from the start, or from the
     * last answer). An interrupt of the calling thread cancels [task] and is rethrown.
     */
    fun <T> run(task: ((String, Boolean) -> Unit) -> T, onSilence: (String?) -> T): T {
        val lastActivity = AtomicLong(System.nanoTime())
        val lastRepository = AtomicReference<String?>(null)
        val future = workers.submit<T> {
            task { repository, answered ->
                lastRepository.set(repository)
                if (answered) lastActivity.set(System.nanoTime())
            }
        }
        while (true) {
            try {
                return future.get(POLL_MILLIS, TimeUnit.MILLISECONDS)
            } catch (_: TimeoutException) {
                if (System.nanoTime() - lastActivity.get() > silence.inWholeNanoseconds) {
                    future.cancel(true)
                    return onSilence(lastRepository.get())
                }
            } catch (e: ExecutionException) {
                throw e.cause ?: e
            } catch (e: InterruptedException) {
                future.cancel(true)
                throw e
            }
        }
    }

    override fun close() {
        workers.shutdownNow()
    }

    private companion object {
        const val POLL_MILLIS = 100L
    }
}
