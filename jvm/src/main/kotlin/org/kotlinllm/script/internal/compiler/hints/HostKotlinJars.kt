package org.kotlinllm.script.internal.compiler.hints

import java.io.File
import kotlin.script.experimental.jvm.util.classpathFromClassloader

/** The host's Kotlin libraries that snippets use (the standard library, kotlinx.coroutines), whose names hints may import. */
internal object HostKotlinJars {
    private val libraries = Regex("""^(kotlin-stdlib|kotlin-reflect|kotlinx-coroutines-[a-z0-9]+)(-jvm)?-\d.*\.jar$""")

    fun of(hostClassLoader: ClassLoader): List<File> =
        classpathFromClassloader(hostClassLoader).orEmpty().filter { it.isFile && libraries.matches(it.name) }.distinct()
}
