package org.kotlinllm.script.host

/**
 * What a host's thread stopper reads through JNI before it calls the JVM tool interface's StopThread: the thread to
 * stop and the error to throw in it. Set by [HostExecution.prepareStop]; the host clears it with [clear]. One stop
 * at a time in a process: hosts serialize them.
 */
public object StopTarget {
    @JvmField
    public var thread: Thread? = null

    @JvmField
    public var error: Throwable? = null

    @JvmStatic
    public fun clear() {
        thread = null
        error = null
    }
}
