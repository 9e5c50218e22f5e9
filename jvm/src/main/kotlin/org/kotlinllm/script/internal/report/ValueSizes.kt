package org.kotlinllm.script.internal.report

import java.lang.reflect.Field
import java.lang.reflect.Modifier
import java.util.IdentityHashMap

/**
 * Estimates of the heap a value holds, for the advice under an OutOfMemoryError: it runs right after the heap ran
 * out, so each walk of a value's object graph is bounded by [nodeBudget] objects, and all the walks of one instance by
 * [totalBudget] (then an estimate is a lower bound).
 * Arrays count their length times their element's size; objects count their fields (references as compressed
 * ones, 4 bytes); the fields of JDK classes, which their modules do not open, are replaced by the elements of
 * collections and maps plus a few bytes per element for their structure. Classes, class loaders, threads and the
 * engine's own objects are not walked into: they belong to the session, not to the value.
 */
internal class ValueSizes(private val nodeBudget: Int = NODE_BUDGET, private var totalBudget: Int = TOTAL_BUDGET) {

    /** [bytes] held by a value; not [complete] when the budget cut the walk short, so it holds at least that. */
    data class Estimate(val bytes: Long, val complete: Boolean)

    private val referenceFields = HashMap<Class<*>, List<Field>?>()
    private val shallowSizes = HashMap<Class<*>, Long>()

    fun of(value: Any?): Estimate = if (value == null) Estimate(0, true) else Walk().run(value)

    private inner class Walk {
        private val seen: MutableSet<Any> = java.util.Collections.newSetFromMap(IdentityHashMap())
        private val budget = minOf(nodeBudget, totalBudget)
        private val pending = ArrayDeque<Any>()
        private var cut = false
        private var bytes = 0L

        fun run(root: Any): Estimate {
            offer(root)
            while (true) {
                val node = pending.removeLastOrNull() ?: break
                bytes += visit(node)
            }
            totalBudget -= seen.size
            return Estimate(bytes, !cut)
        }

        /** Adds [child] to the walk; false once the budget is spent. */
        private fun offer(child: Any?): Boolean {
            if (child == null || child in seen) return true
            if (seen.size >= budget) {
                cut = true
                return false
            }
            seen.add(child)
            pending.add(child)
            return true
        }

        private fun visit(node: Any): Long {
            val type = node.javaClass
            if (type.isArray) return array(node, type.componentType)
            if (node is String) return align(STRING_BYTES + ARRAY_HEADER + node.length)
            val shallow = shallowSize(type)
            if (!walksInto(type)) return shallow
            val fields = referenceFields(type)
            if (fields != null) {
                for (field in fields) if (!offer(field.get(node))) break
                return shallow
            }
            return shallow + try {
                when (node) {
                    is Collection<*> -> elements(node, COLLECTION_ENTRY_BYTES)
                    is Map<*, *> -> elements(
                        node.entries.asSequence().flatMap { sequenceOf(it.key, it.value) }.asIterable(),
                        MAP_ENTRY_BYTES / 2,
                    )
                    else -> 0L
                }
            } catch (_: RuntimeException) {
                // changed by another thread meanwhile: what was counted stays a lower bound
                cut = true
                0L
            }
        }

        private fun elements(elements: Iterable<*>, bytesPerElement: Long): Long {
            var count = 0L
            for (element in elements) {
                count++
                if (!offer(element)) break
            }
            return count * bytesPerElement
        }

        private fun array(node: Any, component: Class<*>): Long {
            val length = java.lang.reflect.Array.getLength(node)
            if (component.isPrimitive) return align(ARRAY_HEADER + length.toLong() * primitiveSize(component))
            for (element in node as Array<*>) if (!offer(element)) break
            return align(ARRAY_HEADER + length.toLong() * REFERENCE_BYTES)
        }
    }

    private fun walksInto(type: Class<*>): Boolean =
        !Class::class.java.isAssignableFrom(type) &&
            !ClassLoader::class.java.isAssignableFrom(type) &&
            !Thread::class.java.isAssignableFrom(type) &&
            !type.name.startsWith("java.lang.reflect.") &&
            !type.name.startsWith(ENGINE_PACKAGE)

    /** The instance reference fields of [type] and its superclasses, or null when one of them cannot be read. */
    private fun referenceFields(type: Class<*>): List<Field>? = referenceFields.getOrPut(type) {
        val fields = instanceFields(type).filter { !it.type.isPrimitive }
        if (fields.all { it.trySetAccessible() }) fields else null
    }

    private fun shallowSize(type: Class<*>): Long = shallowSizes.getOrPut(type) {
        align(OBJECT_HEADER + instanceFields(type).sumOf { if (it.type.isPrimitive) primitiveSize(it.type) else REFERENCE_BYTES })
    }

    private fun instanceFields(type: Class<*>): List<Field> =
        generateSequence(type) { it.superclass }.flatMap { it.declaredFields.asSequence() }
            .filter { !Modifier.isStatic(it.modifiers) }
            .toList()

    private fun primitiveSize(type: Class<*>): Long = when (type) {
        java.lang.Long.TYPE, java.lang.Double.TYPE -> 8
        java.lang.Integer.TYPE, java.lang.Float.TYPE -> 4
        java.lang.Short.TYPE, java.lang.Character.TYPE -> 2
        else -> 1
    }

    private fun align(bytes: Long): Long = (bytes + 7) and 7L.inv()

    private companion object {
        const val NODE_BUDGET = 200_000
        const val TOTAL_BUDGET = 1_000_000
        const val OBJECT_HEADER = 12L
        const val ARRAY_HEADER = 16L
        const val REFERENCE_BYTES = 4L

        /** A String's own fields (hash, coder, value) besides its byte array of one byte per Latin-1 character. */
        const val STRING_BYTES = 24L

        /** A list's slot or a set's node per element, a map's node and table slot per entry: typical figures. */
        const val COLLECTION_ENTRY_BYTES = 8L
        const val MAP_ENTRY_BYTES = 40L
        const val ENGINE_PACKAGE = "org.kotlinllm."
    }
}
