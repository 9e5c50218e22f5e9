package org.kotlinllm.script.jupyterapi.descriptor

import org.jetbrains.kotlinx.jupyter.api.ExactRendererTypeHandler
import org.jetbrains.kotlinx.jupyter.api.KotlinKernelHost
import org.jetbrains.kotlinx.jupyter.api.libraries.CodeExecutionCallback
import org.jetbrains.kotlinx.jupyter.api.libraries.KernelRepository
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryDefinition
import org.jetbrains.kotlinx.jupyter.api.libraries.LibraryResource
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourceFallbacksBundle
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourceLocation
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourcePathType
import org.jetbrains.kotlinx.jupyter.api.libraries.ResourceType
import org.jetbrains.kotlinx.jupyter.util.PatternNameAcceptanceRule
import org.junit.jupiter.api.Test
import org.kotlinllm.script.internal.jupyterapi.descriptor.DescriptorException
import org.kotlinllm.script.internal.jupyterapi.descriptor.DescriptorOption
import org.kotlinllm.script.internal.jupyterapi.descriptor.LibraryDescriptors
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

/**
 * Descriptors shaped as those of JetBrains' kotlin-jupyter-libraries (written here, field by field as there), read
 * into the API's [LibraryDefinition]: what each field becomes, how properties and options fill `$name`, and the
 * message of each malformed one.
 */
class LibraryDescriptorsTest {

    private val dataframe = """
        {
          "description": "Kotlin framework for structured data processing",
          "properties": [
            { "name": "v", "value": "1.0.0-Beta5n" },
            { "name": "v-renovate-hint", "value": "update: package=org.jetbrains.kotlinx:dataframe" }
          ],
          "link": "https://github.com/Kotlin/dataframe",
          "init": [
            "if (!\"${'$'}v\".startsWith('0')) USE { dependencies(\"org.jetbrains.kotlinx:dataframe-jupyter:${'$'}v\") }"
          ],
          "dependencies": [
            "org.jetbrains.kotlinx:dataframe:${'$'}v"
          ],
          "integrationTypeNameRules": [
            "+:org.jetbrains.kotlinx.dataframe.**"
          ]
        }
    """.trimIndent()

    private val kandy = """
        {
          "description": "Kotlin plotting DSL for Lets-Plot",
          "properties": [
            { "name": "kandyVersion", "value": "0.8.4" },
            { "name": "kandyVersion-renovate-hint", "value": "update: package=org.jetbrains.kotlinx:kandy-lets-plot" },
            { "name": "statsVersion", "value": "0.8.4" }
          ],
          "repositories": [ "https://packages.jetbrains.team/maven/p/kds/kotlin-ds-maven" ],
          "dependencies": [
            "org.jetbrains.kotlinx:kandy-lets-plot:${'$'}kandyVersion",
            "org.jetbrains.kotlinx:kotlin-statistics-jvm:${'$'}statsVersion"
          ],
          "integrationTypeNameRules": [ "-:org.jetbrains.kotlinx.dataframe.**" ]
        }
    """.trimIndent()

    private fun parse(text: String, vararg options: DescriptorOption): LibraryDefinition =
        LibraryDescriptors.parse(text, options.toList(), "lib.json")

    private fun error(text: String, vararg options: DescriptorOption): String =
        assertFailsWith<DescriptorException> { parse(text, *options) }.message.orEmpty()

    private fun codes(callbacks: List<(KotlinKernelHost) -> Any?>): List<String> = callbacks.map { (it as CodeExecutionCallback).code }

    private fun named(name: String, value: String) = DescriptorOption(name, value)

    private fun positional(value: String) = DescriptorOption(null, value)

    @Test
    fun `dataframe's descriptor with its defaults, Renovate's hint left out`() {
        val definition = parse(dataframe)
        assertEquals("Kotlin framework for structured data processing", definition.description)
        assertEquals("https://github.com/Kotlin/dataframe", definition.website)
        assertEquals(mapOf("v" to "1.0.0-Beta5n"), definition.options)
        assertEquals(listOf("org.jetbrains.kotlinx:dataframe:1.0.0-Beta5n"), definition.dependencies)
        assertEquals(
            listOf("if (!\"1.0.0-Beta5n\".startsWith('0')) USE { dependencies(\"org.jetbrains.kotlinx:dataframe-jupyter:1.0.0-Beta5n\") }"),
            codes(definition.init),
        )
        val rule = definition.integrationTypeNameRules.single() as PatternNameAcceptanceRule
        assertEquals(true to "org.jetbrains.kotlinx.dataframe.**", rule.acceptsFlag to rule.pattern)
        assertEquals(dataframe, definition.originalDescriptorText)
        assertEquals(emptyList(), definition.imports + definition.renderers + definition.repositories + definition.resources)
        assertEquals(null, definition.minKernelVersion)
    }

    @Test
    fun `an option named v, or given first without a name, is the version`() {
        for (option in listOf(named("v", "0.15.0"), positional("0.15.0"))) {
            val definition = parse(dataframe, option)
            assertEquals(listOf("org.jetbrains.kotlinx:dataframe:0.15.0"), definition.dependencies)
            assertEquals(mapOf("v" to "0.15.0"), definition.options)
        }
    }

    @Test
    fun `lets-plot's descriptor with a positional version, a named option, and an empty default`() {
        val text = """
            {
              "description": "Kotlin API for Lets-Plot: multiplatform plotting library based on Grammar of Graphics",
              "properties": [
                { "name": "v", "value": "4.14.1" },
                { "name": "v-renovate-hint", "value": "update: package=org.jetbrains.lets-plot:lets-plot-kotlin-jupyter" },
                { "name": "isolatedFrame", "value": "" },
                { "name": "output", "value": "js, ktnb, svg" }
              ],
              "link": "https://github.com/JetBrains/lets-plot-kotlin",
              "dependencies": [ "org.jetbrains.lets-plot:lets-plot-kotlin-jupyter:${'$'}v" ]
            }
        """.trimIndent()
        val definition = parse(text, positional("4.5.0"), named("output", "svg"))
        assertEquals(listOf("org.jetbrains.lets-plot:lets-plot-kotlin-jupyter:4.5.0"), definition.dependencies)
        assertEquals(mapOf("v" to "4.5.0", "isolatedFrame" to "", "output" to "svg"), definition.options)
    }

    @Test
    fun `positional options fill the properties in order, named ones any, and an option no property declares still substitutes`() {
        val definition = parse(kandy, positional("0.9.0"), named("statsVersion", "0.4.0"), named("enableExperimentalCsv", "true"))
        assertEquals(
            listOf("org.jetbrains.kotlinx:kandy-lets-plot:0.9.0", "org.jetbrains.kotlinx:kotlin-statistics-jvm:0.4.0"),
            definition.dependencies,
        )
        assertEquals(mapOf("kandyVersion" to "0.9.0", "statsVersion" to "0.4.0", "enableExperimentalCsv" to "true"), definition.options)
        assertEquals(listOf(KernelRepository("https://packages.jetbrains.team/maven/p/kds/kotlin-ds-maven")), definition.repositories)
        val rule = definition.integrationTypeNameRules.single() as PatternNameAcceptanceRule
        assertEquals(false to "org.jetbrains.kotlinx.dataframe.**", rule.acceptsFlag to rule.pattern)
        val extra = parse("""{"init": ["val csv = ${'$'}enableExperimentalCsv"]}""", named("enableExperimentalCsv", "true"))
        assertEquals(listOf("val csv = true"), codes(extra.init))
    }

    @Test
    fun `properties as an object keep their order, and loadLibraryDescriptor's options are a map`() {
        val text = """{"properties": {"a": "1", "b": "2"}, "init": ["val x = ${'$'}a + ${'$'}b"]}"""
        assertEquals(listOf("val x = 7 + 2"), codes(parse(text, positional("7")).init))
        assertEquals(listOf("val x = 1 + 5"), codes(LibraryDescriptors.parse(text, mapOf("b" to "5"), "loadLibraryDescriptor").init))
    }

    @Test
    fun `the longest property name matches, and Kotlin's own templates and $it are left to the code`() {
        val text = """
            {
              "properties": {"v": "1", "version": "2", "cuda": "11.2"},
              "dependencies": ["org.nd4j:nd4j-cuda-${'$'}cuda-platform:${'$'}v", "g:a:${'$'}version", "g:b:${'$'}{v}"],
              "renderers": {"a.Graph": "HTML(\"<img src=\\\"${'$'}{(${'$'}it as a.Graph).image()}\\\"/>\")"}
            }
        """.trimIndent()
        val definition = parse(text, named("cuda", "10.2"))
        assertEquals(listOf("org.nd4j:nd4j-cuda-10.2-platform:1", "g:a:2", "g:b:${'$'}{v}"), definition.dependencies)
        val renderer = definition.renderers.single() as ExactRendererTypeHandler
        assertEquals("a.Graph", renderer.className)
        assertEquals("HTML(\"<img src=\\\"${'$'}{(${'$'}it as a.Graph).image()}\\\"/>\")", renderer.execution.code)
    }

    @Test
    fun `kaliningraph's imports, repositories and renderers`() {
        val text = """
            {
              "link": "https://github.com/breandan/kaliningraph",
              "properties": [ { "name": "v", "value": "0.1.7" } ],
              "repositories": [ "https://jitpack.io" ],
              "dependencies": [ "com.github.breandan:kaliningraph:${'$'}v" ],
              "imports": [ "edu.mcgill.kaliningraph.*", "org.ejml.kotlin.*" ],
              "renderers": {
                "edu.mcgill.kaliningraph.LabeledGraph": "HTML((${'$'}it as edu.mcgill.kaliningraph.Graph<*, *, *>).html())",
                "edu.mcgill.kaliningraph.circuits.Gate": "HTML((${'$'}it as edu.mcgill.kaliningraph.circuits.Gate).graph.html())"
              }
            }
        """.trimIndent()
        val definition = parse(text)
        assertEquals(listOf("edu.mcgill.kaliningraph.*", "org.ejml.kotlin.*"), definition.imports)
        assertEquals(listOf(KernelRepository("https://jitpack.io")), definition.repositories)
        assertEquals(
            listOf(
                "edu.mcgill.kaliningraph.LabeledGraph -> HTML((${'$'}it as edu.mcgill.kaliningraph.Graph<*, *, *>).html())",
                "edu.mcgill.kaliningraph.circuits.Gate -> HTML((${'$'}it as edu.mcgill.kaliningraph.circuits.Gate).graph.html())",
            ),
            definition.renderers.map { it as ExactRendererTypeHandler }.map { "${it.className} -> ${it.execution.code}" },
        )
    }

    @Test
    fun `repositories as objects, with credentials from options, and url for path`() {
        val text = """
            {
              "properties": {"token": "none"},
              "repositories": [
                "https://repo.example/maven",
                {"path": "https://maven.pkg.github.com/${'$'}owner/kformat", "username": "me", "password": "${'$'}token"},
                {"url": "https://other.example/maven"}
              ]
            }
        """.trimIndent()
        assertEquals(
            listOf(
                KernelRepository("https://repo.example/maven"),
                KernelRepository("https://maven.pkg.github.com/acme/kformat", "me", "s3cret"),
                KernelRepository("https://other.example/maven"),
            ),
            parse(text, named("token", "s3cret"), named("owner", "acme")).repositories,
        )
    }

    @Test
    fun `code fields become host callbacks that execute their code`() {
        val text = """
            {
              "properties": {"greeting": "hi"},
              "init": ["val x = 3", "%use dataframe"],
              "initCell": ["val y = x + 1", "println(\"${'$'}greeting\")"],
              "shutdown": ["println(\"bye\")"]
            }
        """.trimIndent()
        val definition = parse(text)
        assertEquals(listOf("val x = 3", "%use dataframe"), codes(definition.init))
        assertEquals(listOf("val y = x + 1", "println(\"hi\")"), codes(definition.initCell))
        assertEquals(listOf("println(\"bye\")"), codes(definition.shutdown))
    }

    @Test
    fun `resources, one location or fallbacks, minKernelVersion, formatVersion, and fields the format does not know`() {
        val text = """
            {
              "properties": {"currentDir": "."},
              "formatVersion": "3.2",
              "minKernelVersion": "0.11.0.1",
              "someFutureField": {"anything": [1, 2]},
              "resources": [
                {
                  "type": "JS",
                  "name": "Lib",
                  "bundles": [
                    [ {"path": "https://cdn.example/lib.min.js", "type": "URL"} ],
                    {"path": "${'$'}currentDir/js/lib.js", "type": "LOCAL_PATH"}
                  ]
                }
              ]
            }
        """.trimIndent()
        val definition = parse(text, named("currentDir", "/opt/notebooks"))
        assertEquals(
            listOf(
                LibraryResource(
                    listOf(
                        ResourceFallbacksBundle(listOf(ResourceLocation("https://cdn.example/lib.min.js", ResourcePathType.URL))),
                        ResourceFallbacksBundle(listOf(ResourceLocation("/opt/notebooks/js/lib.js", ResourcePathType.LOCAL_PATH))),
                    ),
                    ResourceType.JS,
                    "Lib",
                ),
            ),
            definition.resources,
        )
        assertEquals("0.11.0.1", definition.minKernelVersion.toString())
    }

    @Test
    fun `a property marked ignored is left out, and takes no positional option`() {
        val text = """
            {
              "properties": [
                {"name": "internal", "value": "x", "ignored": true},
                {"name": "v", "value": "1.0"}
              ],
              "dependencies": ["org.example:lib:${'$'}v", "org.example:other:${'$'}internal"]
            }
        """.trimIndent()
        val definition = parse(text, positional("2.0"))
        assertEquals(mapOf("v" to "2.0"), definition.options)
        assertEquals(listOf("org.example:lib:2.0", "org.example:other:${'$'}internal"), definition.dependencies)
        assertEquals(
            "lib.json: \"properties\"[0].ignored must be true or false (line 1)",
            error("""{"properties": [{"name": "a", "value": "b", "ignored": "yes"}]}"""),
        )
    }

    @Test
    fun `a key written with escapes is found at its line`() {
        assertEquals(
            "loadLibraryDescriptor: \"renderers\".a.B must be code (a string) (line 3)",
            assertFailsWith<DescriptorException> {
                LibraryDescriptors.parse("{\"renderers\": {\n\"x\\\"y\": \"z\",\n\"a\\u002eB\": 1}}", emptyMap(), "loadLibraryDescriptor")
            }.message,
        )
    }

    @Test
    fun `an empty descriptor defines nothing`() {
        val definition = parse("{}")
        assertEquals(emptyMap(), definition.options)
        assertEquals(null, definition.description)
        assertEquals(emptyList(), definition.dependencies + definition.init + definition.initCell + definition.shutdown)
    }

    @Test
    fun `text that is not JSON names its line and column`() {
        assertEquals(
            "lib.json: not JSON: expected ',' or ']', found '\"' (line 3, column 13)",
            error("{\n  \"dependencies\": [\n    \"a:b:1\" \"c:d:2\"\n  ]\n}"),
        )
        assertEquals(
            "lib.json: not JSON: expected a string key (line 1, column 22)",
            error("""{"imports": ["a.*"], /* */ "x": 1}"""),
        )
        assertEquals("lib.json: not JSON: expected a value, found ']' (line 1, column 20)", error("""{"imports": ["a.*",]}"""))
        assertEquals("lib.json: a descriptor must be a JSON object {…} (line 2)", error("\n[\"a:b:1\"]"))
    }

    @Test
    fun `a field of the wrong shape names itself and its line`() {
        assertEquals(
            "lib.json: \"dependencies\" must be a list of strings (line 3)",
            error("{\n  \"description\": \"x\",\n  \"dependencies\": \"org.example:lib:1.0\"\n}"),
        )
        assertEquals(
            "lib.json: \"dependencies\"[1] must be a string (line 4)",
            error("{\n  \"dependencies\": [\n    \"a:b:1\",\n    2\n  ]\n}"),
        )
        assertEquals("lib.json: \"init\" must be a list of strings (line 1)", error("""{"init": null}"""))
        assertEquals("lib.json: \"link\" must be a string (line 2)", error("{\n\"link\": 42}"))
        assertEquals(
            "lib.json: \"properties\" must be an object of strings or a list of {\"name\", \"value\"} objects (line 1)",
            error("""{"properties": "v=1"}"""),
        )
        assertEquals("lib.json: \"properties\".v must be a string (line 1)", error("""{"properties": {"v": 1}}"""))
        assertEquals(
            "lib.json: \"properties\"[0] needs a \"value\" string (line 3)",
            error("{\n  \"properties\": [\n    {\"name\": \"v\"}\n  ]\n}"),
        )
    }

    @Test
    fun `repositories, renderers and resources of the wrong shape`() {
        assertEquals(
            "lib.json: \"repositories\"[1] must be a URL or a {\"path\", \"username\", \"password\"} object (line 1)",
            error("""{"repositories": ["https://a.example", 7]}"""),
        )
        assertEquals(
            "lib.json: \"repositories\"[0] needs a \"path\" (line 2)",
            error("{\"repositories\": [\n{\"username\": \"me\"}]}"),
        )
        assertEquals(
            "lib.json: \"repositories\"[0].password must be a string (line 1)",
            error("""{"repositories": [{"path": "https://a.example", "password": 12}]}"""),
        )
        assertEquals(
            "lib.json: \"renderers\" must be an object from type names to code (line 1)",
            error("""{"renderers": ["a.B"]}"""),
        )
        assertEquals("lib.json: \"renderers\".a.B must be code (a string) (line 1)", error("""{"renderers": {"a.B": true}}"""))
        assertEquals(
            "lib.json: \"resources\"[0].type must be one of \"JS\", \"CSS\" (line 1)",
            error("""{"resources": [{"name": "x", "type": "HTML", "bundles": []}]}"""),
        )
        assertEquals(
            "lib.json: \"resources\"[0].bundles[0][1].type must be one of \"URL\", \"URL_EMBEDDED\", \"LOCAL_PATH\", \"CLASSPATH_PATH\" " +
                "(line 3)",
            error(
                "{\"resources\": [{\"name\": \"x\", \"type\": \"CSS\", \"bundles\": [[\n" +
                    "{\"path\": \"a.css\", \"type\": \"URL\"},\n{\"path\": \"b.css\", \"type\": \"FILE\"}]]}]}",
            ),
        )
    }

    @Test
    fun `versions and rules of the wrong shape`() {
        assertEquals(
            "lib.json: \"minKernelVersion\" must be a kernel version such as \"0.11.0.1\", not \"latest\" (line 1)",
            error("""{"minKernelVersion": "latest"}"""),
        )
        assertEquals(
            "lib.json: \"formatVersion\" is 4.0: this kernel reads formats 3.0 to 3.2 (line 1)",
            error("""{"formatVersion": "4.0"}"""),
        )
        assertEquals(
            "lib.json: \"formatVersion\" must be a format version such as \"3.2\", not \"three\" (line 1)",
            error("""{"formatVersion": "three"}"""),
        )
        assertEquals(
            "lib.json: \"integrationTypeNameRules\"[0] must be \"+:pattern\" or \"-:pattern\", not \"*:org.example.**\" (line 1)",
            error("""{"integrationTypeNameRules": ["*:org.example.**"]}"""),
        )
    }

    @Test
    fun `options that do not fit the properties`() {
        assertEquals(
            "lib.json: the option '4.5.0' has no name but follows named ones: name it, or put it first",
            error(dataframe, named("v", "0.15.0"), positional("4.5.0")),
        )
        assertEquals(
            "lib.json: 2 options without names, but the descriptor declares 1 property (v)",
            error(dataframe, positional("0.15.0"), positional("true")),
        )
        assertEquals("lib.json: 1 option without a name, but the descriptor declares no properties", error("{}", positional("1")))
    }
}
