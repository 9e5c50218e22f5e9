package org.kotlinllm.script.runtime

/** Which [ScriptScope] the scope functions of a snippet act on: the one of the session running the calling code. */
internal object SessionScopes : SessionLocal<ScriptScope>() {

    /** The scope of the session running the calling code; on other threads (e.g. a snippet's own) the only live one. */
    fun ofCaller(): ScriptScope = ofCallerOrNull()
        ?: throw IllegalStateException(
            "await, launch and async need the ScriptScope of a session: call them from a snippet, its coroutines, " +
                "or pass them scriptScope",
        )
}
