package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** A snippet that declares nothing leaves no compiler data behind; one that declares stays usable. */
class MemoryTest {

    /** Runs [block] and asserts that the live heap grew by less than [megabytes] over it. */
    private inline fun assertLiveHeapGrowsLessThan(megabytes: Long, block: () -> Unit) {
        val before = liveHeap()
        block()
        val grown = liveHeap() - before
        assertTrue(grown < megabytes shl 20, "the live heap grew by ${grown shr 20} MB")
    }

    private fun liveHeap(): Long {
        repeat(3) {
            System.gc()
            Thread.sleep(50)
        }
        val runtime = Runtime.getRuntime()
        return runtime.totalMemory() - runtime.freeMemory()
    }

    /**
     * Completes what the session's completion warm-up completes between snippets: the libraries' names it keeps are
     * then read before the heap is measured, not counted as the snippets'.
     */
    private fun ScriptSession.readWhatTheWarmUpReads() {
        for (code in listOf("\"\".", "listOf(1).")) complete(code, code.length)
    }

    @Test
    fun `a hundred snippets that declare nothing keep next to no memory`() = runBlocking {
        ScriptSession().use { session ->
            session.execute("import kotlin.math.sqrt\nval kept = 1").assertValue()
            repeat(10) { session.execute("1 + $it").assertValue() }
            session.readWhatTheWarmUpReads()
            // a generous bound: one that keeps its compiler session would keep about half a MB
            assertLiveHeapGrowsLessThan(25) { repeat(100) { session.execute("kept + $it").assertValue() } }
            assertEquals(4.0, session.execute("fun root(): Double = sqrt(kept * 16.0)\nroot()").assertValue().value)
        }
    }

    @Test
    fun `a hundred snippets that declare functions keep a fraction of their compiler sessions`() = runBlocking {
        ScriptSession().use { session ->
            repeat(10) { session.execute("fun warm$it(x: Int): Int = x * $it + 1").assertValue() }
            session.readWhatTheWarmUpReads()
            // a generous bound on what the kept sessions hold once their compilation caches are emptied
            assertLiveHeapGrowsLessThan(20) { repeat(100) { session.execute("fun f$it(x: Int): Int = x * $it + 1").assertValue() } }
            assertEquals(101, session.execute("f99(1) + f0(7)").assertValue().value)
        }
    }

    @Test
    fun `three hundred completions and inspections keep next to no memory`() = runBlocking {
        ScriptSession().use { session ->
            session.execute("val xs = listOf(1, 2, 3)\ndata class P(val name: String)\nval f = java.io.File(\"x\")").assertValue()
            val cases = listOf("xs.ma", "P(\"a\").", "f.", "xs.map { it.to", "pri")
            repeat(20) { session.complete(cases[it % cases.size], cases[it % cases.size].length) }
            session.readWhatTheWarmUpReads()
            // a probe that kept its compiler session (the shared cache of enhanced Java members holds them) keeps ~0.5 MB
            assertLiveHeapGrowsLessThan(30) {
                repeat(300) {
                    val code = cases[it % cases.size]
                    session.complete(code, code.length)
                    session.inspect("xs.first()", 4)
                }
            }
            assertEquals(3, session.execute("xs.size").assertValue().value)
        }
    }

    @Test
    fun `a snippet's class files are dropped once it ran, and its classes loaded later still work`() = runBlocking {
        ScriptSession().use { session ->
            // Local is loaded only when counter() first runs, in a later snippet
            session.execute(
                "class Box(val v: Int)\nfun counter(): () -> Int { class Local(var n: Int) { fun next() = ++n }; val l = Local(0); return { l.next() } }",
            ).assertValue()
            assertEquals(2, session.execute("val c = counter()\nc(); c()").assertValue().value)
            session.execute("enum class Color { RED, GREEN }\nobject Holder { val x = 40 }").assertValue()
            assertEquals(42, session.execute("Box(1).v + Holder.x + Color.GREEN.ordinal").assertValue().value)
            val resource = "Box::class.java.let { it.classLoader.getResource(it.name.replace('.', '/') + \".class\") }"
            assertEquals(null, session.execute(resource).assertValue().value)
        }
    }

    @Test
    fun `one class loader loads every snippet's classes, a redeclared class's too`() = runBlocking {
        ScriptSession().use { session ->
            session.execute("class A").assertValue()
            session.execute("val firstA = A()").assertValue()
            session.execute("1 + 1").assertValue()
            session.execute("class A(val x: Int = 2)").assertValue()
            val loaders = "listOf(firstA.javaClass, A::class.java, this::class.java).map { it.classLoader } + " +
                "Thread.currentThread().contextClassLoader"
            assertEquals(1, session.execute("($loaders).distinct().size").assertValue().value)
            val names = session.execute("listOf(firstA.javaClass.name, A::class.java.name)").assertValue().value
            assertEquals(listOf("Snippet1\$A", "Snippet4\$A"), names)
            assertEquals(2, session.execute("A().x").assertValue().value)
        }
    }

    @Test
    fun `names, packages and built-in types resolve across two full sweeps of the kept sessions`() = runBlocking {
        ScriptSession().use { session ->
            // kept sessions built on built-in types, before the later sessions are given the first one's
            session.execute("fun unit0() { }\nfun nothing0(): Nothing = throw IllegalStateException(\"n\")").assertValue()
            session.execute("fun nullable0(): String? = null\nval chars0: CharSequence = \"ab\"").assertValue()
            session.execute("fun <T> id0(x: T): T = x\nfun throwable0(): Throwable = RuntimeException(\"t\")").assertValue()
            // 140 declaring snippets: the caches of every kept session are swept twice, the package lookups forgotten
            for (i in 1..70) {
                session.execute("val v$i = $i").assertValue()
                session.execute("fun g$i(): String = \"g\" + v$i").assertValue()
                if (i % 10 == 0) assertEquals("g$i", session.execute("g$i()").assertValue().value)
            }
            val expected = listOf(
                "g1() + g70()" to "g1g70",
                "v35 * 2" to 70,
                "unit0() == Unit" to true,
                "runCatching { nothing0() }.exceptionOrNull()?.message" to "n",
                "(nullable0() ?: \"d\") + chars0.length" to "d2",
                "id0(3) + 1" to 4,
                "throwable0().message" to "t",
                "java.util.concurrent.atomic.AtomicInteger(5).incrementAndGet()" to 6,
                "import java.time.Duration\nDuration.ofSeconds(90).toMinutes()" to 1L,
                "kotlin.math.sqrt(16.0)" to 4.0,
            )
            for ((code, value) in expected) assertEquals(value, session.execute(code).assertValue().value, code)
            // a redeclaration after the sweeps wins, and an early function keeps the declaration it was compiled against
            session.execute("val v1 = 100").assertValue()
            assertEquals(100, session.execute("v1").assertValue().value)
            assertEquals("g1", session.execute("g1()").assertValue().value)
        }
    }

    @Test
    fun `declarations keep working across snippets after their compilation caches are emptied`() = runBlocking {
        ScriptSession().use { session ->
            suspend fun declare(code: String) {
                session.execute(code).assertValue()
                session.execute("1 + 1").assertValue() // a snippet that declares nothing: forgotten right away
            }
            declare("open class Base<T>(val x: T) { open fun show(): String = \"base \$x\" }")
            declare("open class Derived(x: Int) : Base<Int>(x) { override fun show() = \"derived \${x + 1}\" }")
            declare("interface Named { val name: String; fun greet() = \"hi \$name\" }")
            declare(
                "data class Person(override val name: String, val age: Int) : Named, Comparable<Person> { override fun compareTo(other: Person) = age - other.age }",
            )
            declare("open class Names : java.util.ArrayList<String>() { fun firstOrEmpty() = if (isEmpty()) \"\" else get(0) }")
            declare("fun <T : Comparable<T>> maxOf3(a: T, b: T, c: T) = maxOf(a, maxOf(b, c))")
            declare("inline fun <reified T> typeName() = T::class.simpleName")
            declare("val people = listOf(Person(\"a\", 3), Person(\"b\", 1))")
            declare("sealed interface Shape\nclass Square(val side: Int) : Shape\nobject Dot : Shape")
            declare("fun area(shape: Shape) = when (shape) { is Square -> shape.side * shape.side; Dot -> 0 }")
            declare("fun Named.shout() = greet().uppercase()")
            declare("val built = StringBuilder().apply { append(\"x\"); append(1) }")
            declare("class Derived2(x: Int) : Derived(x * 10)")
            declare("class LoudNames : Names() { override fun add(element: String): Boolean = super.add(element.uppercase()) }")
            // kinds of function types, annotations and functional interfaces: components kept sessions share
            declare("annotation class Marker(val note: String)")
            declare("@Marker(\"m\") fun marked() = 7")
            declare("val suspending: suspend (Int) -> Int = { it + 1 }")
            declare("fun interface Op { fun apply(x: Int): Int }")
            declare("val twice = Op { it * 2 }")
            declare("val areaOf: kotlin.reflect.KFunction1<Shape, Int> = ::area")
            val expected = listOf(
                "Derived(1).show()" to "derived 2",
                "Derived2(1).show()" to "derived 11",
                "(Derived2(2) as Base<Int>).x" to 20,
                "people.sorted().map { it.name }" to listOf("b", "a"),
                "people.maxOrNull()?.name" to "a",
                "Names().apply { add(\"q\") }.firstOrEmpty()" to "q",
                "LoudNames().apply { add(\"q\") }.firstOrEmpty()" to "Q",
                "LoudNames().size" to 0,
                "maxOf3(1, 5, 3)" to 5,
                "maxOf3(\"b\", \"c\", \"a\")" to "c",
                "typeName<Person>()" to "Person",
                "area(Square(3)) + area(Dot)" to 9,
                "Person(\"z\", 1).shout()" to "HI Z",
                "built.length" to 2,
                "built.toString().reversed()" to "1x",
                "marked() + twice.apply(4)" to 15,
                "runBlocking { suspending(1) }" to 2,
                "areaOf(Square(2))" to 4,
                "::marked.annotations.filterIsInstance<Marker>().single().note" to "m",
            )
            for ((code, value) in expected) assertEquals(value, session.execute(code).assertValue().value, code)
        }
    }
}
