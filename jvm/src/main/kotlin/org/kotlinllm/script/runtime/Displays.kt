package org.kotlinllm.script.runtime

/** What the display functions act on: the display of one session (implemented by the engine's SessionDisplay). */
internal interface DisplaySink {
    fun display(value: Any?, id: String?, update: Boolean)

    fun clearOutput(wait: Boolean)

    /** [caller] is the snippet's frame that registers it (inside the inlined `render`). */
    fun register(type: Class<*>, renderer: (Any) -> Any?, caller: StackTraceElement?)
}

/** Which session's display the display functions reach: the one running the calling code, found as SessionScopes does. */
internal object Displays : SessionLocal<DisplaySink>() {

    /** The sink of the session running the calling code; on other threads the only live one; else text to System.out. */
    fun ofCaller(): DisplaySink = ofCallerOrNull() ?: Printing

    /** Outside any session (or with several and none of them calling): the text of each display, printed. */
    private object Printing : DisplaySink {
        override fun display(value: Any?, id: String?, update: Boolean) {
            val text = when (value) {
                Unit -> return
                is MimeTypedResult -> value.bundle().plain
                is Image -> value.bundle().plain
                else -> value.toString()
            }
            println(text)
        }

        override fun clearOutput(wait: Boolean) = Unit

        override fun register(type: Class<*>, renderer: (Any) -> Any?, caller: StackTraceElement?) = Unit
    }
}
