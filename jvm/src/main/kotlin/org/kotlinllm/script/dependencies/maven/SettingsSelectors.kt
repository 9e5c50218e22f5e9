package org.kotlinllm.script.dependencies.maven

import org.eclipse.aether.RepositorySystemSession
import org.eclipse.aether.repository.Authentication
import org.eclipse.aether.repository.Proxy
import org.eclipse.aether.util.repository.AuthenticationBuilder
import org.eclipse.aether.util.repository.DefaultAuthenticationSelector
import org.eclipse.aether.util.repository.DefaultMirrorSelector
import org.eclipse.aether.util.repository.DefaultProxySelector
import org.kotlinllm.script.dependencies.model.MavenSettings
import org.kotlinllm.script.dependencies.model.SettingsProxy
import org.kotlinllm.script.dependencies.model.SettingsServer

/**
 * The mirrors, proxies and credentials of the Maven settings, as maven-resolver's selectors, the way Maven builds
 * them: the first mirror whose `mirrorOf` matches replaces a repository; credentials are those of the `<server>`
 * whose id is the repository's id, or the mirror's id for a mirrored repository; a proxy is the first active one of
 * the repository's protocol whose `nonProxyHosts` leave out its host.
 */
internal object SettingsSelectors {

    fun applyTo(builder: RepositorySystemSession.SessionBuilder, settings: MavenSettings) {
        if (settings.isEmpty) return
        val mirrors = DefaultMirrorSelector()
        for (mirror in settings.mirrors) {
            mirrors.add(mirror.id, mirror.url, mirror.layout, false, mirror.blocked, mirror.mirrorOf, mirror.mirrorOfLayouts)
        }
        val proxies = DefaultProxySelector()
        for (proxy in settings.proxies) proxies.add(proxyOf(proxy), proxy.nonProxyHosts)
        val authentications = DefaultAuthenticationSelector()
        for (server in settings.servers) authenticationOf(server)?.let { authentications.add(server.id, it) }
        builder.setMirrorSelector(mirrors).setProxySelector(proxies).setAuthenticationSelector(authentications)
    }

    private fun proxyOf(proxy: SettingsProxy): Proxy {
        val authentication = AuthenticationBuilder().addUsername(proxy.username).addPassword(proxy.password).build()
        return Proxy(proxy.protocol, proxy.host, proxy.port, authentication)
    }

    private fun authenticationOf(server: SettingsServer): Authentication? =
        AuthenticationBuilder()
            .addUsername(server.username)
            .addPassword(server.password)
            .addPrivateKey(server.privateKey, server.passphrase)
            .build()
}
