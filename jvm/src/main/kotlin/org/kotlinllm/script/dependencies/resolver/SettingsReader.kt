package org.kotlinllm.script.dependencies.resolver

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.dependencies.model.MavenSettings
import org.kotlinllm.script.dependencies.model.Messages
import org.kotlinllm.script.dependencies.model.SettingsMirror
import org.kotlinllm.script.dependencies.model.SettingsProxy
import org.kotlinllm.script.dependencies.model.SettingsServer
import org.w3c.dom.Element
import org.xml.sax.ErrorHandler
import org.xml.sax.SAXException
import org.xml.sax.SAXParseException
import java.io.IOException
import java.nio.file.Path
import javax.xml.XMLConstants
import javax.xml.parsers.DocumentBuilderFactory
import kotlin.io.path.isRegularFile

private val logger = KotlinLogging.logger {}

/** The settings file could not be used; [message] is one line, naming the file. */
internal class SettingsException(message: String) : Exception(message)

/**
 * Finds and reads the user's Maven settings. The file is, in this order: [SessionConfiguration.mavenSettings]
 * (`org.kotlinllm.script.SessionConfiguration`), the system property [FILE_PROPERTY], or `~/.m2/settings.xml`.
 * A missing default file means no settings; a missing file that was named is an error, as in Maven.
 * `${env.NAME}` and `${property}` are replaced by environment variables and system properties, as Maven does;
 * encrypted passwords (`{...}`, settings-security.xml) are not supported and are used as written.
 */
internal object SettingsReader {
    const val FILE_PROPERTY: String = "kotlinllm.maven.settings"
    private val EXPRESSION = Regex("""\$\{([^}]+)}""")

    fun read(configured: Path?): MavenSettings {
        val named = configured ?: System.getProperty(FILE_PROPERTY)?.takeIf { it.isNotBlank() }?.let { Path.of(it) }
        val file = named ?: Path.of(System.getProperty("user.home"), ".m2", "settings.xml")
        if (!file.isRegularFile()) {
            if (named != null) throw SettingsException(Messages.settingsMissing(file.toString()))
            return MavenSettings.NONE
        }
        val root = try {
            documentBuilderFactory().newDocumentBuilder().apply { setErrorHandler(Quiet) }.parse(file.toFile()).documentElement
        } catch (e: SAXException) {
            throw SettingsException(Messages.settingsUnreadable(file.toString(), e.message ?: e.javaClass.simpleName))
        } catch (e: IOException) {
            throw SettingsException(Messages.settingsUnreadable(file.toString(), e.message ?: e.javaClass.simpleName))
        }
        val settings = MavenSettings(
            mirrors = root.list("mirrors", "mirror").mapNotNull(::mirror),
            proxies = root.list("proxies", "proxy").filter { it.text("active")?.lowercase() != "false" }.mapNotNull(::proxy),
            servers = root.list("servers", "server").mapNotNull(::server),
        )
        logger.debug {
            "Maven settings $file: ${settings.mirrors.size} mirrors, ${settings.proxies.size} active proxies, ${settings.servers.size} servers"
        }
        if (settings.servers.any { it.password.isEncrypted() || it.passphrase.isEncrypted() }) {
            logger.warn { "Maven settings $file: encrypted passwords are not supported; they are sent as written" }
        }
        return settings
    }

    private fun mirror(element: Element): SettingsMirror? {
        val url = element.text("url") ?: return null
        return SettingsMirror(
            id = element.text("id") ?: "default",
            url = url,
            mirrorOf = element.text("mirrorOf") ?: return null,
            layout = element.text("layout") ?: "default",
            mirrorOfLayouts = element.text("mirrorOfLayouts") ?: "default,legacy",
            blocked = element.text("blocked")?.lowercase() == "true",
        )
    }

    private fun proxy(element: Element): SettingsProxy? = SettingsProxy(
        protocol = element.text("protocol") ?: "http",
        host = element.text("host") ?: return null,
        port = element.text("port")?.toIntOrNull() ?: DEFAULT_PROXY_PORT,
        username = element.text("username"),
        password = element.text("password"),
        nonProxyHosts = element.text("nonProxyHosts"),
    )

    private fun server(element: Element): SettingsServer? = SettingsServer(
        id = element.text("id") ?: return null,
        username = element.text("username"),
        password = element.text("password"),
        privateKey = element.text("privateKey"),
        passphrase = element.text("passphrase"),
    )

    private fun String?.isEncrypted(): Boolean = this != null && startsWith("{") && endsWith("}")

    private fun Element.list(container: String, item: String): List<Element> =
        children(container).flatMap { it.children(item) }

    /** The trimmed, interpolated text of the child [name], or null when absent or blank. */
    private fun Element.text(name: String): String? =
        children(name).firstOrNull()?.textContent?.trim()?.takeIf { it.isNotEmpty() }?.let(::interpolate)

    private fun Element.children(name: String): List<Element> {
        val nodes = childNodes
        return (0 until nodes.length).mapNotNull { nodes.item(it) as? Element }.filter { (it.localName ?: it.tagName) == name }
    }

    private fun interpolate(text: String): String = EXPRESSION.replace(text) { match ->
        val key = match.groupValues[1]
        val value = if (key.startsWith("env.")) System.getenv(key.removePrefix("env.")) else System.getProperty(key)
        value ?: match.value
    }

    private const val DEFAULT_PROXY_PORT = 8080

    /** Fails on errors without printing them to the standard error stream, as the JDK's default handler does. */
    private object Quiet : ErrorHandler {
        override fun warning(exception: SAXParseException) = Unit
        override fun error(exception: SAXParseException) = throw exception
        override fun fatalError(exception: SAXParseException) = throw exception
    }

    private fun documentBuilderFactory(): DocumentBuilderFactory = DocumentBuilderFactory.newInstance().apply {
        isNamespaceAware = true
        setFeature("http://apache.org/xml/features/disallow-doctype-decl", true)
        setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true)
        isXIncludeAware = false
        isExpandEntityReferences = false
    }
}
