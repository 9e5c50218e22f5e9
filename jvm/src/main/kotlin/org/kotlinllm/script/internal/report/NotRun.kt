package org.kotlinllm.script.internal.report

/** A snippet its host cancelled while it compiled: compiled, never run, and left behind like a failed one. */
internal object NotRun {
    /** The message of its `InterruptedException`, also what a host says when it cannot wait for the compilation. */
    const val MESSAGE: String = "the snippet was cancelled while it compiled: it did not run"
}
