package org.kotlinllm.script.dependencies.model

/**
 * What the engine takes from the user's Maven settings (`settings.xml`): mirrors, proxies and server credentials.
 * They apply to resolving artifacts with maven-resolver only; `maven-metadata.xml` is read without them
 * ([MetadataVersions]). The settings' `localRepository` is not used: the session's configured local repository is
 * the authority. Only JDK and Kotlin types, as these cross into the resolver's class loader.
 */
internal data class MavenSettings(
    val mirrors: List<SettingsMirror> = emptyList(),
    val proxies: List<SettingsProxy> = emptyList(),
    val servers: List<SettingsServer> = emptyList(),
) {
    val isEmpty: Boolean get() = mirrors.isEmpty() && proxies.isEmpty() && servers.isEmpty()

    companion object {
        val NONE: MavenSettings = MavenSettings()
    }
}

/** A `<mirror>`: [mirrorOf] as Maven reads it (`*`, `external:*`, `external:http:*`, `!id`, comma lists). */
internal data class SettingsMirror(
    val id: String,
    val url: String,
    val mirrorOf: String,
    val layout: String,
    val mirrorOfLayouts: String,
    val blocked: Boolean,
)

/** An active `<proxy>`; [nonProxyHosts] as written (`|`- or `,`-separated, with `*` wildcards). */
internal data class SettingsProxy(
    val protocol: String,
    val host: String,
    val port: Int,
    val username: String?,
    val password: String?,
    val nonProxyHosts: String?,
)

/** A `<server>`: credentials for the repository, or mirror, of the same [id]. */
internal data class SettingsServer(
    val id: String,
    val username: String?,
    val password: String?,
    val privateKey: String?,
    val passphrase: String?,
)
