package org.kotlinllm.script.internal.routing

import org.kotlinllm.script.runtime.Json
import org.kotlinllm.script.runtime.MimeBundle
import java.lang.reflect.InvocationTargetException
import java.lang.reflect.Proxy

/**
 * Values of JetBrains' Kotlin notebook API (`org.jetbrains.kotlinx.jupyter.api`, on a snippet's classpath through
 * `@file:DependsOn`) shown as that kernel shows them. Found by reflection through the value's own class loader, so
 * the engine never depends on that API: a `DisplayResult` gives its bundle through `toJson(JsonObject, String?)`,
 * the method every release of the API has; a `Renderable` is rendered first with a notebook that answers only what
 * a renderer may ask without a JetBrains kernel.
 */
internal object JupyterApiInterop {
    private const val API = "org.jetbrains.kotlinx.jupyter.api"

    /** The bundle of [value] when it is a `DisplayResult`, else null. */
    fun displayResult(value: Any): MimeBundle? {
        val type = apiClass(value, "$API.DisplayResult") ?: return null
        val jsonObject = Class.forName("kotlinx.serialization.json.JsonObject", true, type.classLoader)
        val empty = jsonObject.getConstructor(Map::class.java).newInstance(emptyMap<String, Any>())
        val json = unwrap { type.getMethod("toJson", jsonObject, String::class.java).invoke(value, empty, null) }.toString()
        val parsed = Json.parse(json) as? Map<*, *> ?: return null
        val data = LinkedHashMap<String, String>()
        (parsed["data"] as? Map<*, *>)?.forEach { (mime, content) ->
            val name = mime.toString()
            data[name] = if (content is String && !MimeBundle.isJson(name)) content else Json.write(content)
        }
        @Suppress("UNCHECKED_CAST")
        val metadata = (parsed["metadata"] as? Map<String, Any?>).orEmpty()
        val id = (parsed["transient"] as? Map<*, *>)?.get("display_id") as? String
        return MimeBundle.of(data, metadata, id)
    }

    /** What `render(notebook)` of [value] gives when it is a `Renderable` (not a `DisplayResult`), else null. */
    fun render(value: Any): Any? {
        val type = apiClass(value, "$API.Renderable") ?: return null
        val notebookType = Class.forName("$API.Notebook", true, type.classLoader)
        val notebook = Proxy.newProxyInstance(type.classLoader, arrayOf(notebookType)) { proxy, method, args ->
            when (method.name) {
                "getJupyterClientType" -> clientType(type.classLoader)
                "getCurrentColorScheme" -> null
                "toString" -> "notebook (kotlin-llm)"
                "hashCode" -> System.identityHashCode(proxy)
                "equals" -> proxy === args?.firstOrNull()
                else -> throw UnsupportedOperationException("notebook.${method.name} is not available in the kotlin-llm kernel")
            }
        }
        return unwrap { type.getMethod("render", notebookType).invoke(value, notebook) }
    }

    private fun clientType(loader: ClassLoader): Any? = runCatching {
        val enum = Class.forName("$API.JupyterClientType", true, loader)
        enum.enumConstants.firstOrNull { (it as Enum<*>).name == "UNKNOWN" }
    }.getOrNull()

    /** The API's class [name] as the value's class loader sees it, when the value is one; else null. */
    private fun apiClass(value: Any, name: String): Class<*>? {
        val loader = value.javaClass.classLoader ?: return null
        val type = try {
            Class.forName(name, false, loader)
        } catch (_: ClassNotFoundException) {
            return null
        } catch (_: LinkageError) {
            return null
        }
        return type.takeIf { it.isInstance(value) }
    }

    /** A reflective call, its own exception rethrown as the renderer's failure. */
    private fun <T> unwrap(call: () -> T): T = try {
        call()
    } catch (e: InvocationTargetException) {
        throw e.targetException ?: e
    }
}
