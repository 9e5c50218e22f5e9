package org.kotlinllm.script.internal.report

import org.junit.jupiter.api.Test
import org.kotlinllm.script.internal.report.OutOfMemoryHint
import kotlin.test.assertEquals

/** The bounded estimates of the heap a value holds, named under an OutOfMemoryError. */
class ValueSizesTest {

    @Test
    fun `arrays count their length times their element's size`() {
        val sizes = ValueSizes()
        assertEquals(ValueSizes.Estimate(16L + 8 * 1000, true), sizes.of(LongArray(1000)))
        assertEquals(ValueSizes.Estimate(16L + 1003 + 5, true), sizes.of(ByteArray(1003)))
        // an array of references: its slots, and each distinct element once
        val shared = IntArray(10)
        assertEquals(ValueSizes.Estimate(16L + 4 * 4 + (16 + 40), true), sizes.of(arrayOf(shared, shared, null, shared)))
    }

    @Test
    fun `objects count their fields and what they refer to, each object once through cycles`() {
        val holder = arrayOfNulls<Any>(1)
        val pair = Pair(LongArray(10), holder)
        holder[0] = pair
        // a Pair: a 12-byte header and two compressed references, 24 bytes aligned; the holder array: 16 + 4, aligned
        assertEquals(ValueSizes.Estimate(24L + (16 + 80) + 24, true), ValueSizes().of(pair))
        assertEquals(ValueSizes.Estimate(24L + (16 + 80) + 24, true), ValueSizes().of(holder))
    }

    @Test
    fun `collections of the JDK count their elements plus a few bytes each`() {
        val list = java.util.ArrayList<LongArray>()
        repeat(3) { list.add(LongArray(1_000_000)) }
        // the ArrayList itself (header, size, modCount, elementData: 24 bytes), 8 bytes a slot, three arrays
        assertEquals(ValueSizes.Estimate(24L + 3 * 8 + 3 * 8_000_016, true), ValueSizes().of(list))
        val map = hashMapOf("a" to 1L)
        // the HashMap (48 bytes), 40 bytes an entry, the key (24 + 16 + 1, aligned) and the boxed value (12 + 8, aligned)
        assertEquals(ValueSizes.Estimate(48L + 40 + 48 + 24, true), ValueSizes().of(map))
    }

    @Test
    fun `the node budget cuts a large graph short, and the estimate is then a lower bound`() {
        val many = List(1000) { LongArray(1) }
        val cut = ValueSizes(nodeBudget = 100).of(ArrayList(many))
        assertEquals(false, cut.complete)
        // the list, then 99 of its arrays (24 bytes each) before the budget ran out
        assertEquals(24L + 100 * 8 + 99 * 24, cut.bytes)
    }

    @Test
    fun `all the walks of one estimator share a total budget`() {
        val sizes = ValueSizes(nodeBudget = 100, totalBudget = 150)
        assertEquals(24L + 100 * 8 + 99 * 24, sizes.of(ArrayList(List(1000) { LongArray(1) })).bytes)
        // 50 objects left: the list and 49 of its arrays
        val second = sizes.of(ArrayList(List(1000) { LongArray(1) }))
        assertEquals(ValueSizes.Estimate(24L + 50 * 8 + 49 * 24, false), second)
    }

    @Test
    fun `sizes are written in binary units`() {
        assertEquals("16 B", OutOfMemoryHint.format(16))
        assertEquals("12 KB", OutOfMemoryHint.format(12 * 1024 + 100))
        assertEquals("23 MB", OutOfMemoryHint.format(24_000_096))
        assertEquals("2.9 GB", OutOfMemoryHint.format(3_100_000_000))
    }
}
