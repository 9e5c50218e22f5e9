package org.kotlinllm.script.internal.jupyterapi

import org.jetbrains.kotlinx.jupyter.api.JREInfoProvider
import org.jetbrains.kotlinx.jupyter.api.KotlinKernelVersion
import org.jetbrains.kotlinx.jupyter.api.SessionOptions
import org.jetbrains.kotlinx.jupyter.api.jvm.JavaVersion

/** What this kernel says of itself through JetBrains' API. */
internal object KernelFacts {
    /**
     * The version of JetBrains' kernel whose API this one implements (the API jars it ships): libraries compare it with
     * their `setMinimalKernelVersion`.
     */
    const val API_KERNEL_VERSION: String = "0.19.0.944"

    val version: KotlinKernelVersion = checkNotNull(KotlinKernelVersion.from(API_KERNEL_VERSION)) { "a kernel version" }
}

/** `SessionOptions`: kept as set; sources are not resolved and snippets are not serialized here. */
internal class KernelSessionOptions : SessionOptions {
    @Volatile
    override var resolveSources: Boolean = false

    @Volatile
    override var serializeScriptData: Boolean = false
}

/** `JavaRuntimeUtils`: the Java runtime the kernel runs on. */
internal object JavaRuntime : JREInfoProvider {
    override val javaVersion: JavaVersion = JavaVersion(Runtime.version().feature()) { System.getProperty("java.version") }

    override val version: String get() = javaVersion.versionString

    override val versionAsInt: Int get() = javaVersion.versionInteger

    override fun assertVersion(message: String, condition: (Int) -> Boolean) {
        if (!condition(versionAsInt)) throw AssertionError(message)
    }

    override fun assertVersionAtLeast(minVersion: Int) {
        assertVersion("this code needs Java $minVersion or newer; the kernel runs on Java $version") { it >= minVersion }
    }

    override fun assertVersionInRange(minVersion: Int, maxVersion: Int) {
        assertVersion("this code needs Java $minVersion to $maxVersion; the kernel runs on Java $version") { it in minVersion..maxVersion }
    }
}
