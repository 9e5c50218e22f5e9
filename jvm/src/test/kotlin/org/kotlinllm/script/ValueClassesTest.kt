package org.kotlinllm.script

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import kotlin.test.assertEquals
import kotlin.test.assertNull
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/**
 * Declarations with a value class in their signature (a user's value class, Duration, UInt, Result), declared in one
 * snippet and used from later ones: the compiler calls them by other names than it declares them under.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ValueClassesTest {

    private val session = ScriptSession()

    @AfterAll
    fun close() = session.close()

    private fun value(code: String): Any? = runBlocking { session.execute(code) }.assertValue().value

    private val imports = "import kotlin.time.Duration\nimport kotlin.time.Duration.Companion.seconds\n"

    @Test
    fun `a property of a user value class type`() {
        value("@JvmInline value class Nm(val nm: String)\nval nn = Nm(\"Andy\")")
        assertEquals(4, value("nn.nm.length"))
        assertEquals("Nm(nm=Andy)", value("nn").toString())
        assertEquals("Nm", value("nn")?.javaClass?.simpleName)
    }

    @Test
    fun `properties of Duration, UInt, a generic value class and Duration?`() {
        value(
            "${imports}val timeout = 5.seconds\nval count = 5u\n@JvmInline value class Box<T>(val v: T)\nval boxed = Box(7)\nval maybe: Duration? = 2.seconds",
        )
        assertEquals(5000L, value("timeout.inWholeMilliseconds"))
        assertEquals(5.seconds, value("timeout"))
        assertEquals(6u, value("count + 1u"))
        assertEquals(5u, value("count"))
        assertEquals(8, value("boxed.v + 1"))
        assertEquals(2.seconds, value("maybe"))
        assertEquals(2000L, value("maybe?.inWholeMilliseconds"))
    }

    @Test
    fun `a var is read and set`() {
        value("${imports}var interval = 3.seconds")
        assertEquals(9.seconds, value("import kotlin.time.Duration.Companion.seconds\ninterval = 9.seconds\ninterval"))
        value("import kotlin.time.Duration.Companion.seconds\nfun reset() { interval = 4.seconds }")
        assertEquals(4.seconds, value("reset()\ninterval"))
    }

    @Test
    fun `functions returning and taking value classes, with defaults, internal ones`() {
        value(
            imports +
                "@JvmInline value class Id(val id: String)\n" +
                "fun delay5() = 5.seconds\nfun millis(d: Duration): Long = d.inWholeMilliseconds\nfun idOf(i: Id): String = i.id\n" +
                "fun doubled(d: Duration = 1.seconds) = d * 2\nfun orNull(d: Duration?): Duration? = d\nfun next(u: UInt) = u + 1u\n" +
                "internal fun label(i: Id, n: Int = 1) = i.id + n",
        )
        assertEquals(5.seconds, value("delay5()"))
        assertEquals(2000L, value("import kotlin.time.Duration.Companion.seconds\nmillis(2.seconds)"))
        assertEquals("x", value("idOf(Id(\"x\"))"))
        assertEquals(
            listOf(2.seconds, 8.seconds),
            value("import kotlin.time.Duration.Companion.seconds\nlistOf(doubled(), doubled(4.seconds))"),
        )
        assertNull(value("orNull(null)"))
        assertEquals(5u, value("next(4u)"))
        assertEquals("q1", value("label(Id(\"q\"))"))
    }

    @Test
    fun `extension functions and properties on and returning value classes`() {
        value(
            "@JvmInline value class Word(val w: String)\nfun Word.size(): Int = w.length\nfun Int.toWord(): Word = Word(\"n\" + this)\nval Word.loud: Word get() = Word(w + \"!\")",
        )
        assertEquals(3, value("Word(\"abc\").size()"))
        assertEquals("Word(w=n3)", value("3.toWord()").toString())
        assertEquals("Word(w=hi!)", value("Word(\"hi\").loud").toString())
    }

    @Test
    fun `used from inside a later snippet's functions and lambdas`() {
        value("${imports}val period = 5.seconds\nfun periodTwice() = period * 2")
        value(
            "fun total(): Long = period.inWholeMilliseconds + periodTwice().inWholeMilliseconds\nval lazyTotal = { period.inWholeSeconds }",
        )
        assertEquals(15000L, value("total()"))
        assertEquals(5L, value("lazyTotal()"))
        assertEquals(listOf(5001L), value("listOf(1).map { period.inWholeMilliseconds + it }"))
        assertEquals(10L, value("class Reader { fun read(): Long = periodTwice().inWholeSeconds }\nReader().read()"))
    }

    @Test
    fun `members of classes and objects of earlier snippets`() {
        value(
            "$imports@JvmInline value class Tag(val t: String)\nclass Holder(val h: Duration) { fun twice() = h * 2; val tag = Tag(\"in\") }\nobject Defaults { val wait = 4.seconds; fun same(t: Tag) = t }",
        )
        assertEquals(
            listOf(3.seconds, 6.seconds),
            value("import kotlin.time.Duration.Companion.seconds\nval holder = Holder(3.seconds)\nlistOf(holder.h, holder.twice())"),
        )
        assertEquals("Tag(t=in)", value("holder.tag").toString())
        assertEquals(4.seconds, value("Defaults.wait"))
        assertEquals("Tag(t=x)", value("Defaults.same(Tag(\"x\"))").toString())
    }

    @Test
    fun `members of a value class declared in an earlier snippet`() {
        value(
            "@JvmInline value class Name(val n: String) {\n" +
                "    constructor(i: Int) : this(\"#\" + i)\n" +
                "    fun length() = n.length\n    fun join(o: Name, sep: String = \"+\") = Name(n + sep + o.n)\n" +
                "    val upper get() = Name(n.uppercase())\n    companion object { fun of(s: String) = Name(s) }\n}",
        )
        assertEquals(2, value("Name(\"ab\").length()"))
        assertEquals("Name(n=a+b)", value("Name(\"a\").join(Name(\"b\"))").toString())
        assertEquals("Name(n=a-b)", value("Name(\"a\").join(Name(\"b\"), \"-\")").toString())
        assertEquals("Name(n=AB)", value("Name(\"ab\").upper").toString())
        assertEquals("Name(n=#5)", value("Name(5)").toString())
        assertEquals("Name(n=c)", value("Name.of(\"c\")").toString())
    }

    @Test
    fun `a later snippet's class overrides an earlier snippet's member, seen by the earlier snippet's code`() {
        value(
            imports +
                "interface Timed { val at: Duration; fun scale(x: Duration): Duration }\n" +
                "fun atOf(t: Timed) = t.at\nfun scaled(t: Timed) = t.scale(1.seconds)\n" +
                "open class Base { open val size = 1.seconds; fun doubled() = size * 2 }\n" +
                "fun interface Maker { fun make(): Duration }\nfun callMaker(m: Maker) = m.make()",
        )
        value("${imports}class Fixed : Timed { override val at = 7.seconds; override fun scale(x: Duration) = x * 3 }")
        assertEquals(listOf(7.seconds, 7.seconds, 3.seconds), value("listOf(atOf(Fixed()), (Fixed() as Timed).at, scaled(Fixed()))"))
        value("import kotlin.time.Duration.Companion.seconds\nclass Bigger : Base() { override val size = 8.seconds }")
        assertEquals(listOf(16.seconds, 8.seconds), value("listOf(Bigger().doubled(), (Bigger() as Base).size)"))
        assertEquals(
            listOf(2.seconds, 2.seconds),
            value("import kotlin.time.Duration.Companion.seconds\nval maker = Maker { 2.seconds }\nlistOf(maker.make(), callMaker(maker))"),
        )
    }

    @Test
    fun `callable references, also through Kotlin reflection`() {
        value("${imports}val fixed = 5.seconds\nvar changing = 1.seconds\nfun produce() = 6.seconds")
        assertEquals(listOf(5.seconds, "fixed", 6.seconds), value("listOf(::fixed.get(), ::fixed.name, (::produce)())"))
        assertEquals(listOf(5.seconds, 6.seconds), value("listOf(::fixed.getter.call(), ::produce.call())"))
        assertEquals(2.seconds, value("import kotlin.time.Duration.Companion.seconds\n::changing.setter.call(2.seconds)\nchanging"))
    }

    @Test
    fun `standard library value classes (Result, ULong, UByte) and a data class of value classes`() {
        value(
            "${imports}val result = runCatching { 21 }\nval big = 7uL\nval small: UByte = 3u\ndata class Event(val at: Duration, val n: UInt)\nval event = Event(1.seconds, 2u)",
        )
        assertEquals(listOf(22, true), value("listOf(result.getOrNull()?.plus(1), result.isSuccess)"))
        assertEquals(listOf(8uL, 3), value("listOf(big + 1uL, small.toInt())"))
        assertEquals(
            listOf(1.seconds, 2u, "Event(at=2s, n=2)"),
            value("import kotlin.time.Duration.Companion.seconds\nlistOf(event.at, event.n, event.copy(at = 2.seconds).toString())"),
        )
        assertEquals(500.milliseconds, value("event.at / 2"))
    }
}
