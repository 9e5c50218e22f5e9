package org.kotlinllm.script.internal.jupyterapi

import kotlinx.serialization.json.JsonObject
import org.jetbrains.kotlinx.jupyter.api.CodeCell
import org.jetbrains.kotlinx.jupyter.api.DeclarationInfo
import org.jetbrains.kotlinx.jupyter.api.DeclarationKind
import org.jetbrains.kotlinx.jupyter.api.DisplayContainer
import org.jetbrains.kotlinx.jupyter.api.DisplayResult
import org.jetbrains.kotlinx.jupyter.api.DisplayResultWithCell
import org.jetbrains.kotlinx.jupyter.api.Notebook
import org.jetbrains.kotlinx.jupyter.api.ResultsAccessor
import org.kotlinllm.script.internal.compiler.source.DeclaredName
import java.util.concurrent.CopyOnWriteArrayList

/** One cell of the session as JetBrains' API shows it; [result] set once it ran, [displays] as it shows them. */
internal class Cell(
    override val notebook: Notebook,
    override val id: Int,
    override val internalId: Int,
    override val code: String,
    override val preprocessedCode: String,
    override val prevCell: CodeCell?,
) : CodeCell {
    @Volatile
    override var result: Any? = null

    @Volatile
    override var declarations: List<DeclarationInfo> = emptyList()

    override val streamOutput: String get() = ""

    override val displays: Displays = Displays()

    override fun toString(): String = "cell $id"

    /** The displays of one cell, or of all cells. */
    inner class Displays : DisplayContainer {
        val shown = CopyOnWriteArrayList<DisplayResultWithCell>()

        override fun getAll(): List<DisplayResultWithCell> = shown.toList()

        override fun getById(id: String?): List<DisplayResultWithCell> = shown.filter { it.id == id }

        fun add(result: DisplayResult) {
            shown += CellDisplay(result, this@Cell)
        }
    }
}

/** A display and the cell that showed it. */
private class CellDisplay(private val result: DisplayResult, override val cell: CodeCell) : DisplayResultWithCell {
    override val id: String? get() = result.id

    override fun toJson(additionalMetadata: JsonObject, overrideId: String?): JsonObject = result.toJson(additionalMetadata, overrideId)

    override fun toString(): String = result.toString()
}

/** The cells run so far, the latest last: `notebook.cellsList`, `history(n)`, `Out[n]`. */
internal class CellHistory(private val notebook: () -> Notebook) : ResultsAccessor {
    private val cells = CopyOnWriteArrayList<Cell>()

    val all: List<Cell> get() = cells

    /** A new cell, the current one from now on. */
    fun start(id: Int, code: String, preprocessed: String): Cell =
        Cell(notebook(), id, cells.size, code, preprocessed, cells.lastOrNull()).also(cells::add)

    /** The cell run [before] cells ago: 0 the current (or last) one; null beyond the first. */
    fun history(before: Int): Cell? = cells.getOrNull(cells.size - 1 - before)

    /** The cell with execution count [id]; throws [IndexOutOfBoundsException] as JetBrains' notebook does. */
    fun cell(id: Int): Cell = cells.lastOrNull { it.id == id } ?: throw IndexOutOfBoundsException("no cell with execution count $id")

    override fun get(i: Int): Any? = cell(i).result

    /** The names each cell declared, by execution count. */
    fun variables(): Map<Int, Set<String>> = cells.associate { cell ->
        cell.id to cell.declarations.filter { it.kind == DeclarationKind.PROPERTY }.mapNotNullTo(LinkedHashSet<String>()) { it.name }
    }

    fun allDisplays(): List<DisplayResultWithCell> = cells.flatMap { it.displays.getAll() }

    companion object {
        /** A declaration of a snippet as JetBrains' API names its kind. */
        fun info(declaration: DeclaredName): DeclarationInfo = DeclarationInfo(
            declaration.name,
            when (declaration.kind) {
                DeclaredName.Kind.PROPERTY -> DeclarationKind.PROPERTY
                DeclaredName.Kind.FUNCTION -> DeclarationKind.FUNCTION
                DeclaredName.Kind.CLASS -> DeclarationKind.CLASS
                else -> DeclarationKind.UNKNOWN
            },
        )
    }
}
