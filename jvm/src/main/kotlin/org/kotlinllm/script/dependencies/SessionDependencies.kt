package org.kotlinllm.script.dependencies

import io.github.oshai.kotlinlogging.KotlinLogging
import org.kotlinllm.script.dependencies.model.BackendResult
import org.kotlinllm.script.dependencies.model.BackendSettings
import org.kotlinllm.script.dependencies.model.FailureKind
import org.kotlinllm.script.dependencies.model.MavenBackend
import org.kotlinllm.script.dependencies.model.MavenCoordinates
import org.kotlinllm.script.dependencies.model.Messages
import org.kotlinllm.script.dependencies.model.RepositorySpec
import org.kotlinllm.script.dependencies.model.ResolvedArtifact
import org.kotlinllm.script.dependencies.resolver.RepositoryUrls
import org.kotlinllm.script.dependencies.resolver.ResolverLibrary
import org.kotlinllm.script.dependencies.resolver.SettingsException
import org.kotlinllm.script.dependencies.resolver.SettingsReader
import org.kotlinllm.script.dependencies.resolver.SilenceWatchdog
import org.kotlinllm.script.dependencies.versions.LatestVersionLookup
import org.kotlinllm.script.dependencies.versions.LatestVersionRule
import org.kotlinllm.script.dependencies.versions.MetadataVersions
import org.kotlinllm.script.dependencies.versions.VersionChoice
import org.kotlinllm.script.diagnostics.Diagnostic
import org.kotlinllm.script.diagnostics.Severity
import org.kotlinllm.script.diagnostics.SourceRange
import java.io.File
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.measureTimedValue

private val logger = KotlinLogging.logger {}

/**
 * The `@file:DependsOn` / `@file:Repository` support of one session: reads a snippet's annotations before it is
 * compiled, resolves them with Maven, and keeps what committed snippets loaded.
 *
 * Repositories are those declared by this and earlier (committed) snippets, or, while none is declared,
 * [DependencySettings.defaultRepositories] (empty: Maven Central). Jars the host already provides are left out.
 * The mirrors, proxies and credentials of the Maven settings ([SettingsReader]) apply to resolving artifacts, not to
 * the `maven-metadata.xml` read for version-less coordinates; the local repository is the configured one.
 */
internal class SessionDependencies(
    configuration: DependencySettings,
    hostClassLoader: ClassLoader,
) : AutoCloseable {
    private val timeout = configuration.resolutionTimeout
    private val settings = BackendSettings(
        localRepository = configuration.localRepository,
        connectTimeoutMillis = timeout.inWholeMilliseconds.toInt(),
        requestTimeoutMillis = timeout.inWholeMilliseconds.toInt(),
    )
    private val settingsFile = configuration.mavenSettings
    private val defaultRepositories = configuration.defaultRepositories
    private val sandboxNetwork = configuration.sandboxNetwork
    private val hostLibraries = HostLibraries(hostClassLoader)
    private val metadata = MetadataVersions(timeout)
    private val watchdog = SilenceWatchdog(timeout + WATCHDOG_GRACE)
    private val state = DependencyState()
    private var backendResult: Result<MavenBackend>? = null

    /** The jars the committed snippets loaded, in the order they were loaded. */
    val loadedJars: List<File> get() = state.loaded.values.map { it.file }

    /** Resolves the `@file:DependsOn` / `@file:Repository` annotations [declared] by a snippet. Blocking. */
    fun resolve(declared: DeclaredAnnotations): DependencyResolution {
        if (declared.isEmpty) return DependencyResolution.None
        val (resolution, took) = measureTimedValue { SnippetResolution(declared).run() }
        logger.debug { "Dependencies of a snippet in $took: ${resolution.javaClass.simpleName}" }
        return resolution
    }

    override fun close() {
        watchdog.close()
        backendResult?.getOrNull()?.close()
    }

    /** Reads the Maven settings once, when the session first resolves; a failure to read them is kept too. */
    private fun backend(): Result<MavenBackend> =
        backendResult ?: try {
            ResolverLibrary.newBackend(settings.copy(maven = SettingsReader.read(settingsFile)))
        } catch (e: SettingsException) {
            Result.failure(e)
        }.also { backendResult = it }

    /** The resolution of one snippet; changes nothing in [state] until its commit. */
    private inner class SnippetResolution(private val declared: DeclaredAnnotations) {
        private val errors = mutableListOf<Diagnostic>()
        private val warnings = mutableListOf<Diagnostic>()
        private val versionNotes = mutableListOf<Diagnostic>()
        private val chosenVersions = linkedMapOf<String, String>()
        private val resolvedVersions = linkedMapOf<String, String>()

        fun run(): DependencyResolution {
            for (problem in declared.problems) {
                if (problem.isError) errors += error(Messages.notLiteral(problem.annotation), problem.range)
                else warnings += warning(Messages.optionsIgnored(problem.annotation), problem.range)
            }
            val newRepositories = declared.repositories.mapNotNull { declaredRepository ->
                RepositoryUrls.normalize(declaredRepository.value)
                    ?: null.also { errors += error(Messages.invalidRepository(declaredRepository.value), declaredRepository.range) }
            }.filterNot { it in state.repositories }.distinct()
            val dependencies = declared.dependencies.mapNotNull { dependency ->
                MavenCoordinates.parse(dependency.value)?.let { it to dependency.range }
                    ?: null.also { errors += error(Messages.invalidCoordinates(dependency.value), dependency.range) }
            }
            if (errors.isNotEmpty()) return DependencyResolution.Failed(errors + warnings)
            if (dependencies.isEmpty()) return resolved(newRepositories, emptyList())

            val backend = backend().getOrElse { cause ->
                val failed = dependencies.map { (_, range) ->
                    if (cause is SettingsException) error(cause.message.orEmpty(), range)
                    else error(Messages.resolverMissing(cause.message ?: cause.javaClass.simpleName), range, ResolverLibrary.MISSING_HINT)
                }
                return DependencyResolution.Failed(failed)
            }
            val repositories = (state.repositories + newRepositories).ifEmpty { defaultRepositories }
                .ifEmpty { listOf(backend.centralUrl) }
            val lookup = LatestVersionLookup(metadata, LatestVersionRule(backend.versionOrder), timeout, sandboxNetwork)
            val artifacts = dependencies.flatMap { (coordinates, range) ->
                val versioned = withVersion(coordinates, range, repositories, lookup) ?: return@flatMap emptyList()
                Requested(versioned, range).resolvedAs(resolveOne(backend, versioned, range, repositories))
            }
            if (errors.isNotEmpty()) return DependencyResolution.Failed(versionNotes + errors + warnings)
            return resolved(newRepositories, artifacts, backend.versionOrder)
        }

        private fun withVersion(
            coordinates: MavenCoordinates,
            range: SourceRange,
            repositories: List<String>,
            lookup: LatestVersionLookup,
        ): MavenCoordinates? {
            if (coordinates.version != null) return coordinates
            val module = coordinates.module
            val known = chosenVersions[module] ?: state.versionOf(module)
            if (known != null) {
                resolvedVersions[module] = known
                versionNotes += warning(Messages.sessionVersion(module, known), range)
                return coordinates.withVersion(known)
            }
            return when (val choice = lookup.choose(coordinates, repositories)) {
                is VersionChoice.Chosen -> {
                    val version = choice.version.version
                    chosenVersions[module] = version
                    resolvedVersions[module] = version
                    versionNotes += warning(Messages.latestVersion(module, choice.version.version, choice.version.preRelease), range)
                    coordinates.withVersion(version)
                }
                is VersionChoice.Unavailable -> null.also { errors += error(choice.message, range) }
            }
        }

        private fun resolveOne(
            backend: MavenBackend,
            coordinates: MavenCoordinates,
            range: SourceRange,
            repositories: List<String>,
        ): List<ResolvedArtifact> {
            val specs = repositories.map { RepositorySpec(RepositoryUrls.idOf(it, backend.centralUrl), it) }
            val result = watchdog.run(
                task = { onTransfer -> backend.resolve(coordinates.toString(), specs, onTransfer) },
                onSilence = { last ->
                    BackendResult.Failure(FailureKind.TIMEOUT, coordinates.toString(), listOf(last ?: repositories.first()), "no answer")
                },
            )
            val repaired = when (result) {
                is BackendResult.Artifacts -> result.repaired
                is BackendResult.Failure -> result.repaired
            }
            for (copy in repaired) warnings += warning(Messages.repairedCopy(copy, settings.localRepository.toString()), range)
            return when (result) {
                is BackendResult.Artifacts -> result.artifacts
                is BackendResult.Failure -> emptyList<ResolvedArtifact>().also { errors += failureDiagnostic(coordinates, range, result) }
            }
        }

        private fun failureDiagnostic(coordinates: MavenCoordinates, range: SourceRange, failure: BackendResult.Failure): Diagnostic {
            val root = coordinates.toString()
            val repository = failure.repositories.firstOrNull()
            val message = when (failure.kind) {
                FailureKind.NOT_FOUND -> {
                    val isRoot = failure.artifact.startsWith(coordinates.module + ":")
                    val hint = if (isRoot && hasPomOnly(coordinates)) Messages.multiplatformHint(coordinates) else null
                    return error(Messages.notFound(root, failure.artifact, isRoot, failure.repositories), range, hint)
                }
                FailureKind.UNREACHABLE -> Messages.unreachable(root, repository ?: "the repository", failure.cause)
                FailureKind.TIMEOUT -> Messages.timedOut(root, repository ?: "the repository", timeout)
                FailureKind.DENIED -> Messages.denied(
                    root,
                    repository ?: "the repository",
                    failure.repositoryId ?: "?",
                    failure.status ?: 0,
                    sandboxNetwork,
                )
                FailureKind.OTHER -> Messages.failed(root, repository, failure.cause)
            }
            return error(message, range)
        }

        /** The root's POM is in the local repository but its jar was not found: e.g. a Kotlin Multiplatform root. */
        private fun hasPomOnly(coordinates: MavenCoordinates): Boolean {
            val version = coordinates.version ?: return false
            val directory = settings.localRepository
                .resolve(coordinates.groupId.replace('.', '/')).resolve(coordinates.artifactId).resolve(version)
            return directory.resolve("${coordinates.artifactId}-$version.pom").toFile().isFile
        }

        private fun resolved(
            newRepositories: List<String>,
            artifacts: List<Pair<ResolvedArtifact, Requested>>,
            versionOrder: Comparator<String>? = null,
        ): DependencyResolution {
            val selection = JarSelection(versionOrder)
            for ((artifact, requested) in artifacts) selection.add(artifact, requested)
            val added = selection.added.values.toList()
            val changes = StateChanges(newRepositories, chosenVersions.toMap(), added, selection.addedBy, selection.hostProvided)
            return DependencyResolution.Resolved(
                classpath = added.map { it.file },
                resolvedVersions = resolvedVersions.toMap(),
                warnings = (selection.conflicts.diagnostics() + selection.notes + warnings).distinct(),
                commit = { changes.applyTo(state) },
            )
        }

        /**
         * The jars of the snippet's artifacts that the session loads: those neither loaded already nor provided by
         * the host. What is left out is said only when it matters: a dependency that needs a newer major or minor
         * version than the one that stays ([conflicts]), or an artifact the snippet asked for by name whose version
         * is not the one used ([notes]; a host-provided one once per session). A library's dependency on an older
         * kotlin-stdlib, kotlin-reflect, slf4j, … than the host's (nearly every library has some) is left out
         * without a word: nothing is wrong and nothing is to be done, and a line per such jar (four for DataFrame)
         * hid the conflicts that do matter, to a person and to an agent alike.
         */
        private inner class JarSelection(private val versionOrder: Comparator<String>?) {
            val added = linkedMapOf<String, ResolvedArtifact>()
            val addedBy = mutableMapOf<String, String>()
            val hostProvided = mutableSetOf<String>()
            val conflicts = VersionConflicts()
            val notes = mutableListOf<Diagnostic>()
            val ranges = mutableMapOf<String, SourceRange>()

            fun add(artifact: ResolvedArtifact, requested: Requested) {
                if (artifact.extension != "jar") return
                ranges.putIfAbsent(artifact.key, requested.range)
                val earlier = state.loaded[artifact.key] ?: added[artifact.key]
                if (earlier != null) return leaveOutLoaded(artifact, earlier, requested)
                val provider = hostLibraries.providerOf(artifact.file)
                if (provider == null) {
                    added[artifact.key] = artifact
                    addedBy[artifact.key] = requested.coordinates.toString()
                } else {
                    leaveOutHostProvided(artifact, provider, requested)
                }
            }

            private fun leaveOutLoaded(artifact: ResolvedArtifact, earlier: ResolvedArtifact, requested: Requested) {
                when {
                    earlier.version == artifact.version -> {}
                    newer(artifact.version, earlier.version) -> {
                        val loadedBy = state.loadedBy[artifact.key] ?: addedBy[artifact.key] ?: earlier.coordinates
                        conflicts.session(requested, artifact, earlier.version, loadedBy)
                    }
                    requested.isRoot(artifact) -> notes += warning(Messages.alreadyLoaded(artifact, earlier.version), requested.range)
                }
            }

            private fun leaveOutHostProvided(artifact: ResolvedArtifact, provider: String, requested: Requested) {
                val reported = artifact.coordinates in state.hostProvided || artifact.coordinates in hostProvided
                val hostVersion = hostLibraries.versionIn(provider, artifact.artifactId)
                when {
                    reported || provider == artifact.file.name -> return
                    hostVersion != null && newer(artifact.version, hostVersion) -> conflicts.host(requested, artifact, hostVersion)
                    requested.isRoot(artifact) -> notes += warning(Messages.providedByHost(artifact, provider), requested.range)
                    else -> return
                }
                hostProvided += artifact.coordinates
            }

            /** Only a newer major or minor version conflicts: a patch release adds no API the library could call. */
            private fun newer(version: String, winner: String) =
                versionOrder != null && versionOrder.compare(featureRelease(version), featureRelease(winner)) > 0
        }
    }

    /** `major.minor` of [version] (`1.11` of `1.11.0-RC`), or [version] itself when it does not start so. */
    private fun featureRelease(version: String): String =
        FEATURE_RELEASE.find(version)?.value ?: version

    private fun error(message: String, range: SourceRange, hint: String? = null) = Diagnostic(Severity.ERROR, message, range, hint)

    private fun warning(message: String, range: SourceRange) = Diagnostic(Severity.WARNING, message, range)

    private companion object {
        val FEATURE_RELEASE = Regex("""^\d+(\.\d+)?""")

        /** Past the transport's own timeout, so that it normally reports first, with its more precise cause. */
        val WATCHDOG_GRACE = 500.milliseconds
    }
}
