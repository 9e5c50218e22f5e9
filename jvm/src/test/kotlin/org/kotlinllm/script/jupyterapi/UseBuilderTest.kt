package org.kotlinllm.script.jupyterapi

import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.kotlinllm.script.assertValue
import org.kotlinllm.script.host.EventReader
import org.kotlinllm.script.host.HostSession
import org.kotlinllm.script.host.defaultSettings
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * JetBrains' `USE { … }` with the real `JupyterIntegration.Builder` of the API jar, `notebook`, `Out` and the
 * processors, as a notebook written for JetBrains' kernel uses them: one session, cells in order.
 */
@Timeout(600)
class UseBuilderTest : OneSessionTest() {

    @Test
    fun `import adds default imports for the later cells`() {
        value("""USE { import("java.util.concurrent.atomic.AtomicInteger") }""")
        assertEquals("5", value("AtomicInteger(5).get()").valueText)
    }

    @Test
    fun `importPackage and import of a type by its reified parameter`() {
        value("""USE { importPackage<java.util.zip.CRC32>(); import<java.util.concurrent.atomic.AtomicLong>() }""")
        assertEquals("7 Adler32", value("\"${'$'}{AtomicLong(7).get()} ${'$'}{Adler32()::class.simpleName}\"").valueText)
    }

    @Test
    fun `onLoaded declares a variable and runs code through the host`() {
        value(
            """
            val config = mapOf("depth" to 3)
            USE {
                onLoaded {
                    declare("cfg" to config)
                    execute("val fromHost = 6 * 7")
                }
            }
            """,
        )
        assertEquals("3 42", value("\"${'$'}{cfg[\"depth\"]} ${'$'}fromHost\"").valueText)
    }

    @Test
    fun `render of a type renders the value of the cell that registers it and of later cells`() {
        val same = value(
            """
            class Money(val cents: Long)
            USE { render<Money> { HTML("<b>${'$'}{it.cents / 100}.${'$'}{"%02d".format(it.cents % 100)} €</b>") } }
            Money(1234)
            """,
        )
        assertEquals("<b>12.34 €</b>", same.valueData["text/html"])
        assertEquals("<b>0.05 €</b>", value("Money(5)").valueData["text/html"])
    }

    @Test
    fun `addTextRenderer gives the text of the values it takes`() {
        value(
            """
            class Point(val x: Int, val y: Int)
            USE { addTextRenderer { _, value -> (value as? Point)?.let { "(${'$'}{it.x}, ${'$'}{it.y})" } } }
            """,
        )
        assertEquals("(1, 2)", value("Point(1, 2)").valueText)
    }

    @Test
    fun `beforeCellExecution and afterCellExecution run around every later cell`() {
        value(
            """
            val calls = mutableListOf<String>()
            USE {
                beforeCellExecution { calls += "before" }
                afterCellExecution { _, result -> calls += "after ${'$'}{result.value}" }
            }
            """,
        )
        value("1 + 1")
        assertEquals("[before, after 2, before]", value("calls.toString()").valueText)
    }

    @Test
    fun `updateVariable converts a declared variable`() {
        value(
            """
            class Celsius(val degrees: Double)
            USE { updateVariable<Celsius> { value, property -> execute("val ${'$'}{property.name}_f = ${'$'}{value.degrees * 9 / 5 + 32}").name } }
            """,
        )
        value("val outside = Celsius(20.0)")
        assertEquals("68.0", value("outside_f").valueText)
    }

    @Test
    fun `onClassAnnotation gets the annotated classes a cell declares`() {
        value(
            """
            annotation class Tracked
            val tracked = mutableListOf<String>()
            USE { onClassAnnotation<Tracked> { classes -> tracked += classes.map { it.simpleName.orEmpty() } } }
            """,
        )
        value("@Tracked class Alpha\n@Tracked class Beta\nclass Gamma")
        assertEquals("[Alpha, Beta]", value("tracked.toString()").valueText)
    }

    @Test
    fun `preprocessCode rewrites the later cells before they compile`() {
        value("""USE { preprocessCode { code -> code.replace("TWELVE", "12") } }""")
        assertEquals("24", value("TWELVE * 2").valueText)
        value("notebook.codePreprocessorsProcessor.unregisterAll()")
    }

    @Test
    fun `notebook knows its cells, their results by execution count, and Out`() {
        val first = value("\"first value\"")
        val n = first.snippetNumber
        val report = value(
            """
            val cell = notebook.getCell($n)
            listOf(cell.code, Out[$n], notebook.getResult($n), notebook.currentCell?.id == notebook.cellsList.last().id,
                notebook.kernelVersion.toString(), notebook.jupyterClientType).joinToString(" | ")
            """,
        )
        assertEquals("\"first value\" | first value | first value | true | 0.19.0.944 | UNKNOWN", report.valueText)
    }

    @Test
    fun `a throwing onLoaded is reported with its library and callback, and the cell's own output stays`() {
        val outcome = value(
            """
            println("own output")
            USE { onLoaded { throw IllegalStateException("on purpose") } }
            "own value"
            """,
        )
        assertEquals("own value", outcome.valueText)
        val err = output(outcome.snippetNumber, "stderr")
        assertTrue(
            err.startsWith(
                "[kotlin-llm] error: the USE {} of snippet${outcome.snippetNumber}.kts: its init code (onLoaded) threw " +
                    "IllegalStateException: on purpose",
            ),
            err,
        )
        assertEquals("2", value("1 + 1").valueText)
    }

    @Test
    fun `dependencies and repositories resolve through the session's resolver`() {
        val repository = IntegrationFixtures.repository().toURI().toString()
        value("USE { repositories(\"$repository\"); dependencies(\"${IntegrationFixtures.FX_BROKEN}\") }")
        assertEquals("FxBroken(v=3)", value("com.example.fxbroken.FxBroken(3)").valueText)
    }

    @Test
    fun `renderThrowable renders what a later cell throws as its value`() {
        value(
            """
            class Refusal(message: String) : Exception(message)
            USE { renderThrowable<Refusal> { HTML("<p>refused: ${'$'}{it.message}</p>") } }
            """,
        )
        assertEquals("<p>refused: no</p>", value("throw Refusal(\"no\")").valueData["text/html"])
    }

    @Test
    fun `onVariable sees the variables of later cells, addTypeConverter converts them`() {
        value(
            """
            class Seconds(val n: Int)
            class Label(val text: String)
            val seen = mutableListOf<String>()
            USE {
                onVariable<Label> { value, property -> seen += "${'$'}{property.name}=${'$'}{value.text}" }
                addTypeConverter(FieldHandlerFactory.createUpdateHandler<Seconds>(TypeDetection.RUNTIME) { value, property ->
                    execute("val ${'$'}{property.name}Minutes = ${'$'}{value.n / 60}").name
                })
            }
            """,
        )
        value("val wait = Seconds(120)\nval title = Label(\"T\")")
        assertEquals("[title=T] 2", value("\"${'$'}seen ${'$'}waitMinutes\"").valueText)
    }

    @Test
    fun `markVariableInternal leaves variables out of variablesState and variablesReport`() {
        value("""USE { markVariableInternal { it.name.startsWith("tmp") } }""")
        value("val tmpHidden = 1\nval shownVariable = 2")
        val report = value("notebook.variablesReport").valueText.orEmpty()
        assertTrue("\tshownVariable : 2\n" in report, report)
        assertTrue("tmpHidden" !in report, report)
        assertEquals("false", value("\"tmpHidden\" in notebook.variablesState").valueText)
    }

    @Test
    fun `onColorSchemeChange hears notebook changeColorScheme, and currentColorScheme tells it`() {
        value("val schemes = mutableListOf<ColorScheme>()\nUSE { onColorSchemeChange { schemes += it } }")
        value("notebook.changeColorScheme(ColorScheme.DARK)")
        assertEquals("[DARK] DARK", value("\"${'$'}schemes ${'$'}{notebook.currentColorScheme}\"").valueText)
    }

    @Test
    fun `setMinimalKernelVersion refuses a library needing a newer kernel, naming both versions`() {
        val outcome = value("""USE { setMinimalKernelVersion("0.99.0.1"); import("java.util.BitSet") }""")
        assertEquals(
            "[kotlin-llm] error: the USE {} of snippet${outcome.snippetNumber}.kts needs JetBrains' kernel 0.99.0.1 or newer; " +
                "this kernel implements its API 0.19.0.944: not loaded\n",
            output(outcome.snippetNumber, "stderr"),
        )
    }

    @Test
    fun `onShutdown runs when the session closes`() {
        val closed = java.util.concurrent.CountDownLatch(1)
        val other = HostSession.create(mapOf("closed" to closed), defaultSettings())
        val otherEvents = EventReader(other)
        otherEvents.settled(other.submit("val latch = closed\nUSE { onShutdown { latch.countDown() } }").snippetNumber).result.assertValue()
        other.close()
        assertTrue(closed.await(120, java.util.concurrent.TimeUnit.SECONDS), "the shutdown callback ran")
    }

    @Test
    fun `onShutdown and onInterrupt register their callbacks with the notebook's processors`() {
        value("USE { onShutdown { println(\"bye\") }; onInterrupt { println(\"interrupted\") } }")
        assertEquals(
            "1 1",
            value(
                "\"${'$'}{notebook.shutdownExecutionsProcessor.registeredExtensions().size} ${'$'}{notebook.interruptionCallbacksProcessor.registeredExtensions().size}\"",
            ).valueText,
        )
    }

    @Test
    fun `the notebook's processors register and unregister what a cell gives them`() {
        value(
            """
            val log = mutableListOf<String>()
            val before: KotlinKernelHost.() -> Unit = { log += "before" }
            notebook.beforeCellExecutionsProcessor.register(before)
            val wordRenderer = createRenderer<StringBuilder> { HTML("<u>${'$'}it</u>") }
            notebook.renderersProcessor.registerWithoutOptimizing(wordRenderer)
            """,
        )
        assertEquals("<u>ab</u>", value("StringBuilder(\"ab\")").valueData["text/html"])
        value("notebook.beforeCellExecutionsProcessor.unregister(before)\nnotebook.renderersProcessor.unregister(wordRenderer)")
        assertEquals(null, value("StringBuilder(\"cd\")").valueData["text/html"])
        // before the cell that rendered and the one that unregistered it
        assertEquals("[before, before]", value("log.toString()").valueText)
    }

    @Test
    fun `loadLibraryProducers loads a producer declared in a cell`() {
        value(
            """
            object Greeting : LibraryDefinitionProducer {
                override fun getDefinitions(notebook: Notebook) = listOf(createLibrary(notebook) { onLoaded { execute("val greeting = 7") } })
            }
            """,
        )
        value("loadLibraryProducers(Greeting::class.java.name)")
        assertEquals("7", value("greeting").valueText)
    }

    @Test
    fun `a renderer that throws shows the value as text and names where it came from`() {
        val outcome = value(
            """
            class Fragile(val n: Int) { override fun toString() = "Fragile ${'$'}n" }
            USE { render<Fragile> { error("cannot render ${'$'}{it.n}") } }
            Fragile(4)
            """,
        )
        assertEquals("Fragile 4", outcome.valueText)
        assertEquals(null, outcome.valueData["text/html"])
        assertEquals(
            "[kotlin-llm] the renderer of the USE {} of snippet${outcome.snippetNumber}.kts threw java.lang.IllegalStateException: " +
                "cannot render 4; shown as text\n",
            output(outcome.snippetNumber, "stderr"),
        )
        assertEquals("2", value("1 + 1").valueText)
    }
}
