package org.kotlinllm.script.dependencies

/** A host class that the fixture artifact `com.example:hostlib` also contains: the host's must win. */
object HostLib {
    @JvmStatic
    fun who(): String = "host"
}
