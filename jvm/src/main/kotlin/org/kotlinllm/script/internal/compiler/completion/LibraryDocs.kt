package org.kotlinllm.script.internal.compiler.completion

import io.github.oshai.kotlinlogging.KotlinLogging
import org.jetbrains.kotlin.com.intellij.openapi.project.Project
import org.jetbrains.kotlin.fir.declarations.FirCallableDeclaration
import org.jetbrains.kotlin.fir.declarations.FirClassLikeDeclaration
import org.jetbrains.kotlin.fir.declarations.utils.sourceElement
import org.jetbrains.kotlin.fir.symbols.FirBasedSymbol
import org.jetbrains.kotlin.fir.symbols.SymbolInternals
import org.jetbrains.kotlin.fir.symbols.impl.FirCallableSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirClassLikeSymbol
import org.jetbrains.kotlin.fir.symbols.impl.FirFunctionSymbol
import org.jetbrains.kotlin.load.kotlin.JvmPackagePartSource
import org.jetbrains.kotlin.load.kotlin.KotlinJvmBinarySourceElement
import org.jetbrains.kotlin.psi.KtCallableDeclaration
import org.jetbrains.kotlin.psi.KtClassOrObject
import org.jetbrains.kotlin.psi.KtDeclaration
import org.jetbrains.kotlin.psi.KtNamedFunction
import org.jetbrains.kotlin.psi.KtPsiFactory
import org.kotlinllm.script.internal.compiler.Signatures
import java.io.File
import java.util.zip.ZipFile

private val logger = KotlinLogging.logger {}

/**
 * The KDoc of library declarations, read from the library's sources jar: `x-1.0-sources.jar` beside `x-1.0.jar` (as
 * Maven's local repository keeps them), or in the `sources/` directory beside the engine's jar, where the build puts
 * the Kotlin standard library's. A sources jar is indexed by package once (the `package` line of each `.kt` file) and
 * a package's files are parsed when first asked about; what was found is kept for the session.
 */
internal class LibraryDocs(project: Project) {

    private val factory = KtPsiFactory(project, false)
    private val packagesByJar = HashMap<File, Map<String, List<String>>?>()
    private val docsByPackage = HashMap<Pair<File, String>, List<Documented>>()

    private class Documented(val name: String, val receiver: String?, val parameters: Int, val isClass: Boolean, val text: String)

    /** The KDoc of [symbol], a library's Kotlin declaration, without the comment's stars; null when not found. */
    @OptIn(SymbolInternals::class)
    fun of(symbol: FirBasedSymbol<*>): String? = runCatching {
        val (jar, packageName) = where(symbol) ?: return null
        val sources = sourcesOf(jar) ?: return null
        val documented = docsByPackage.getOrPut(sources to packageName) { parse(sources, packageName) }
        val name: String
        val parameters: Int
        val receiver: String?
        when (symbol) {
            is FirCallableSymbol<*> -> {
                name = symbol.callableId?.callableName?.asString() ?: return null
                parameters = (symbol as? FirFunctionSymbol<*>)?.valueParameterSymbols?.size ?: -1
                receiver = symbol.resolvedReceiverType?.let { Signatures.type(it).substringBefore('<').removeSuffix("?") }
            }
            is FirClassLikeSymbol<*> -> {
                name = symbol.classId.shortClassName.asString()
                parameters = -1
                receiver = null
            }
            else -> return null
        }
        val candidates = documented.filter { it.name == name && it.isClass == (symbol is FirClassLikeSymbol<*>) }
        (
            candidates.firstOrNull { it.receiver == receiver && it.parameters == parameters }
                ?: candidates.firstOrNull { it.receiver == receiver }
                ?: candidates.firstOrNull()
            )?.text
    }.getOrElse { error ->
        logger.debug(error) { "no KDoc for $symbol" }
        null
    }

    /** The jar holding [symbol]'s class file and its package. */
    @OptIn(SymbolInternals::class)
    private fun where(symbol: FirBasedSymbol<*>): Pair<File, String>? {
        val source = when (val fir = symbol.fir) {
            is FirCallableDeclaration -> fir.containerSource
            is FirClassLikeDeclaration -> fir.sourceElement
            else -> null
        }
        val binary = (source as? JvmPackagePartSource)?.knownJvmBinaryClass ?: (source as? KotlinJvmBinarySourceElement)?.binaryClass
        val library = binary?.containingLibrary ?: return null
        val packageName = when (symbol) {
            is FirCallableSymbol<*> -> symbol.callableId?.packageName?.asString()
            is FirClassLikeSymbol<*> -> symbol.classId.packageFqName.asString()
            else -> null
        } ?: return null
        return File(library) to packageName
    }

    private fun sourcesOf(jar: File): File? {
        val name = jar.name.removeSuffix(".jar") + "-sources.jar"
        return listOfNotNull(File(jar.parentFile, name), bundled?.let { File(it, name) }).firstOrNull { it.isFile }
    }

    private fun parse(sources: File, packageName: String): List<Documented> {
        val entries = packagesByJar.getOrPut(sources) { index(sources) }?.get(packageName).orEmpty()
        if (entries.isEmpty()) return emptyList()
        return ZipFile(sources).use { zip ->
            entries.flatMap { entry ->
                val text = zip.getInputStream(zip.getEntry(entry)).use { String(it.readBytes(), Charsets.UTF_8) }
                val file = factory.createFile(entry.substringAfterLast('/'), text)
                file.declarations.flatMap { declaration -> documented(declaration) }
            }
        }
    }

    private fun documented(declaration: KtDeclaration): List<Documented> {
        val own = declaration.docComment?.let { kdoc ->
            val name = declaration.name ?: return@let null
            val receiver = (declaration as? KtCallableDeclaration)?.receiverTypeReference?.text
                ?.substringBefore('<')?.removeSuffix("?")?.substringAfterLast('.')
            val parameters = (declaration as? KtNamedFunction)?.valueParameters?.size ?: -1
            Documented(name, receiver, parameters, declaration is KtClassOrObject, clean(kdoc.text))
        }
        val members = (declaration as? KtClassOrObject)?.declarations.orEmpty().flatMap { documented(it) }
        return listOfNotNull(own) + members
    }

    /** The `.kt` entries of a sources jar by package, from each file's `package` line. */
    private fun index(sources: File): Map<String, List<String>>? = runCatching {
        ZipFile(sources).use { zip ->
            zip.entries().asSequence().filter { it.name.endsWith(".kt") }.groupBy({ entry ->
                zip.getInputStream(entry).bufferedReader().useLines { lines ->
                    lines.take(PACKAGE_LINE_SEARCH).firstOrNull { it.startsWith("package ") }
                        ?.removePrefix("package ")?.trim()?.removeSuffix(";").orEmpty()
                }
            }, { it.name })
        }
    }.getOrNull()

    companion object {
        /** Lines of a file searched for its `package` line (after the license header and file annotations). */
        private const val PACKAGE_LINE_SEARCH = 60

        /** The `sources/` directory beside the engine's jar (or its `classes/` directory), where the build puts some. */
        private val bundled: File? by lazy {
            runCatching {
                val location = LibraryDocs::class.java.protectionDomain?.codeSource?.location ?: return@runCatching null
                File(location.toURI()).parentFile?.let { File(it, "sources") }?.takeIf { it.isDirectory }
            }.getOrNull()
        }

        /** A KDoc's text without `/**`, `*/` and the leading stars. */
        fun clean(kdoc: String): String = kdoc.removePrefix("/**").removeSuffix("*/").lines()
            .map { it.trim().removePrefix("*").removePrefix(" ").trimEnd() }
            .dropWhile { it.isEmpty() }.dropLastWhile { it.isEmpty() }
            .joinToString("\n")
    }
}
