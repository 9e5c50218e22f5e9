"""Python values as Kotlin source (kotlin_llm_kernel.papermill: kotlin_literals, kotlin_types, parameters_cell), without
a kernel; that the Kotlin compiler accepts the texts, with these types and values, is checked by
tests/test_papermill.py."""

from __future__ import annotations

import datetime

import pytest
import yaml
from kotlin_llm_kernel.papermill.kotlin_literals import KotlinParameterError, Literal, kotlin_literal, kotlin_name
from kotlin_llm_kernel.papermill.kotlin_types import KotlinType, parse_type
from kotlin_llm_kernel.papermill.parameters_cell import Declared, declarations, declared_parameters


def test_scalars_have_kotlin_literals_of_fixed_types() -> None:
    assert kotlin_literal(None) == Literal("null", "Nothing?")
    assert kotlin_literal(True) == Literal("true", "Boolean")
    assert kotlin_literal(False) == Literal("false", "Boolean")
    assert kotlin_literal(5) == Literal("5L", "Long")
    assert kotlin_literal(-5) == Literal("-5L", "Long")
    assert kotlin_literal(0) == Literal("0L", "Long")
    assert kotlin_literal("x") == Literal('"x"', "String")


def test_integers_beyond_int_are_longs_and_beyond_long_big_integers() -> None:
    assert kotlin_literal(2**63 - 1).code == "9223372036854775807L"
    assert kotlin_literal(-(2**63) + 1).code == "-9223372036854775807L"
    assert kotlin_literal(-(2**63)) == Literal("Long.MIN_VALUE", "Long")
    assert kotlin_literal(2**63) == Literal('java.math.BigInteger("9223372036854775808")', "java.math.BigInteger")
    assert kotlin_literal(-(2**63) - 1).code == 'java.math.BigInteger("-9223372036854775809")'


def test_floats_are_double_literals_that_read_back_exactly() -> None:
    assert kotlin_literal(0.5) == Literal("0.5", "Double")
    assert kotlin_literal(5.0).code == "5.0"
    assert kotlin_literal(-0.0).code == "-0.0"
    assert kotlin_literal(1e-05).code == "1e-05"
    assert kotlin_literal(1e16).code == "1e+16"
    assert kotlin_literal(5e-324).code == "5e-324"
    assert kotlin_literal(0.1 + 0.2).code == "0.30000000000000004"
    assert kotlin_literal(float("nan")) == Literal("Double.NaN", "Double")
    assert kotlin_literal(float("inf")).code == "Double.POSITIVE_INFINITY"
    assert kotlin_literal(float("-inf")).code == "Double.NEGATIVE_INFINITY"


def test_a_string_value_is_an_escaped_kotlin_string() -> None:
    assert kotlin_literal('say "$it"\t') == Literal(r'"say \"\$it\"\t"', "String")


def test_lists_of_one_type_are_inferred_and_others_say_their_type() -> None:
    assert kotlin_literal([1, 2]) == Literal("listOf(1L, 2L)", "List<Long>")
    assert kotlin_literal(["a"]) == Literal('listOf("a")', "List<String>")
    assert kotlin_literal([1, None]) == Literal("listOf(1L, null)", "List<Long?>")
    assert kotlin_literal([1, "a"]) == Literal('listOf<Any>(1L, "a")', "List<Any>")
    assert kotlin_literal([1, 2.5]) == Literal("listOf<Any>(1L, 2.5)", "List<Any>")
    assert kotlin_literal([1, "a", None]) == Literal('listOf<Any?>(1L, "a", null)', "List<Any?>")
    assert kotlin_literal([None, None]) == Literal("listOf<Any?>(null, null)", "List<Any?>")
    assert kotlin_literal([]) == Literal("emptyList<Any?>()", "List<Any?>")
    assert kotlin_literal((1, 2)) == Literal("listOf(1L, 2L)", "List<Long>")


def test_nested_collections_keep_their_item_types() -> None:
    assert kotlin_literal([[1], [2, 3]]) == Literal("listOf(listOf(1L), listOf(2L, 3L))", "List<List<Long>>")
    assert kotlin_literal([[1], ["a"]]).code == 'listOf<Any>(listOf(1L), listOf("a"))'
    assert kotlin_literal([[], [1]]).code == "listOf<Any>(emptyList<Any?>(), listOf(1L))"
    assert kotlin_literal({"a": [1], "b": [2]}) == Literal(
        'mapOf("a" to listOf(1L), "b" to listOf(2L))', "Map<String, List<Long>>"
    )


def test_maps_are_pairs_typed_when_keys_or_values_differ() -> None:
    assert kotlin_literal({"a": 1, "b": 2}) == Literal('mapOf("a" to 1L, "b" to 2L)', "Map<String, Long>")
    assert kotlin_literal({"a": -1}).code == 'mapOf("a" to -1L)'
    assert kotlin_literal({"a": 1, "b": None}) == Literal('mapOf("a" to 1L, "b" to null)', "Map<String, Long?>")
    assert kotlin_literal({"a": 1, "b": "x"}) == Literal(
        'mapOf<String, Any>("a" to 1L, "b" to "x")', "Map<String, Any>"
    )
    assert kotlin_literal({1: "x", "b": "y"}).code == 'mapOf<Any, String>(1L to "x", "b" to "y")'
    assert kotlin_literal({True: 1.5, None: 2.5}).code == "mapOf(true to 1.5, null to 2.5)"
    assert kotlin_literal({}) == Literal("emptyMap<String, Any?>()", "Map<String, Any?>")
    assert kotlin_literal({"$k": '"v"'}).code == r'mapOf("\$k" to "\"v\"")'


def test_values_without_a_kotlin_literal_are_errors_located_in_the_value() -> None:
    with pytest.raises(KotlinParameterError) as error:
        kotlin_literal({"a": [1, b"x"]}, "parameter 'cfg'")
    assert str(error.value) == (
        "parameter 'cfg'['a'][1]: bytes has no Kotlin literal (give a str, int, float, bool, None, list or dict)"
    )
    with pytest.raises(KotlinParameterError, match=r"^parameter 'cfg' \(a key\): bytes has no Kotlin literal"):
        kotlin_literal({b"k": 3}, "parameter 'cfg'")
    with pytest.raises(KotlinParameterError, match=r"^the value: set has no Kotlin literal"):
        kotlin_literal({1})


def test_names_are_plain_when_they_can_be_and_else_in_backticks() -> None:
    assert kotlin_name("n") == "n"
    assert kotlin_name("_private2") == "_private2"
    assert kotlin_name("value") == "value"  # soft keywords are names
    assert kotlin_name("by") == "by"
    assert kotlin_name("class") == "`class`"
    assert kotlin_name("typeof") == "`typeof`"
    assert kotlin_name("_") == "`_`"
    assert kotlin_name("__") == "`__`"
    assert kotlin_name("my-name") == "`my-name`"
    assert kotlin_name("2nd") == "`2nd`"
    assert kotlin_name("a b") == "`a b`"
    assert kotlin_name("é") == "`é`"


def test_names_the_compiler_refuses_are_clear_errors() -> None:
    with pytest.raises(KotlinParameterError) as error:
        kotlin_name("a.b")
    assert str(error.value) == (
        "parameter 'a.b': not a Kotlin name, even in backticks (it contains '.'); "
        "rename it (letters, digits and _ always work)"
    )
    with pytest.raises(KotlinParameterError, match=r"it contains '/', '<'\)"):
        kotlin_name("a/b<c")
    with pytest.raises(KotlinParameterError, match=r"it contains '`'\)"):
        kotlin_name("a`b")
    with pytest.raises(KotlinParameterError, match=r"it contains '\\n'\)"):
        kotlin_name("a\nb")
    with pytest.raises(
        KotlinParameterError, match=r"^parameter '': not a Kotlin name, even in backticks \(it contains nothing\)"
    ):
        kotlin_name("")
    with pytest.raises(KotlinParameterError) as error:
        kotlin_name(1)
    assert str(error.value) == "parameter 1: a name must be a string, not int"


def test_the_cell_is_a_comment_and_one_declaration_per_parameter_in_order() -> None:
    cell = declarations({"n": 5, "name": "x", "flags": [1, 2], "cfg": {"a": 1}, "class": None, "when-done": 1.5})
    assert cell == (
        "// Parameters\n"
        "val n = 5L\n"
        'val name = "x"\n'
        "val flags = listOf(1L, 2L)\n"
        'val cfg = mapOf("a" to 1L)\n'
        "val `class` = null\n"
        "val `when-done` = 1.5\n"
    )
    assert declarations({}, "Injected\nby papermill") == "// Injected\n// by papermill\n"


def test_a_bad_parameter_names_itself() -> None:
    with pytest.raises(KotlinParameterError, match=r"^parameter 'cfg'\['when'\]: date has no Kotlin literal"):
        declarations({"n": 1, "cfg": {"when": datetime.date(2024, 1, 1)}})


def test_the_parameters_a_cell_declares_with_types_defaults_and_help() -> None:
    source = (
        "// defaults\n"
        "val n = 3 // how many\n"
        'var name: String = "a // b" // who is greeted\n'
        "val flags: List<Int> = listOf(\n"
        "    1, // first\n"
        "    2,\n"
        ") // the flags\n"
        "println(n)\n"
        "val `my-name` = 2L\n"
        "val ratio = 1.5\n"
        "val small = 1e-3f\n"
        "val on = true\n"
        "val c = 'x'\n"
        'val cfg = mapOf("a" to 1)\n'
        "    val indented: Double? = null\n"
    )
    assert declared_parameters(source) == [
        Declared("n", "Int", "3", "how many"),
        Declared("name", "String", '"a // b"', "who is greeted", mutable=True),
        Declared("flags", "List<Int>", "listOf( 1, 2, )", "the flags"),
        Declared("my-name", "Long", "2L", ""),
        Declared("ratio", "Double", "1.5", ""),
        Declared("small", "Float", "1e-3f", ""),
        Declared("on", "Boolean", "true", ""),
        Declared("c", "Char", "'x'", ""),
        Declared("cfg", "Map<String, Int>", 'mapOf("a" to 1)', ""),
        Declared("indented", "Double?", "null", ""),
    ]
    assert declared_parameters("") == []
    assert declared_parameters("println(1)\nfun f() = 2") == []


def test_collection_defaults_have_the_types_of_their_items() -> None:
    def declared_type(default: str) -> str:
        [declared] = declared_parameters(f"val x = {default}")
        return declared.type

    assert declared_type("listOf(0)") == "List<Int>"
    assert declared_type("listOf(0L, 1L)") == "List<Long>"
    assert declared_type("mutableListOf(1.5)") == "MutableList<Double>"
    assert declared_type('setOf("a", "b")') == "Set<String>"
    assert declared_type("mutableSetOf(true)") == "MutableSet<Boolean>"
    assert declared_type('mapOf("a" to 1, "b" to 2)') == "Map<String, Int>"
    assert declared_type('mutableMapOf("a" to listOf(1L))') == "MutableMap<String, List<Long>>"
    assert declared_type("listOf(listOf(1), listOf(2))") == "List<List<Int>>"
    assert declared_type("emptyList<Int>()") == "List<Int>"
    assert declared_type("emptyMap<String, Any?>()") == "Map<String, Any?>"
    assert declared_type("listOf<Long>(1, 2)") == "List<Long>"
    assert declared_type('listOf("a, b", "(c")') == "List<String>"  # commas and brackets inside strings
    # items of no one literal type: a collection whose items are not known
    assert declared_type("listOf(1, 2L)") == "List"
    assert declared_type("listOf(a, b)") == "List"
    assert declared_type("listOf()") == "List"
    assert declared_type("emptySet()") == "Set"
    assert declared_type("mapOf(a to 1)") == "Map"
    # not one collection call
    assert declared_type("listOf(1) + listOf(2)") == "None"
    assert declared_type("listOf<Int>(1) + g<X>(2)") == "None"
    assert declared_type("arrayOf(1)") == "None"


def test_declared_types_are_read_with_their_arguments_and_nullability() -> None:
    int_type = KotlinType("Int", (), False, "Int")
    assert parse_type("Int") == int_type
    assert parse_type(" kotlin.Int ") == KotlinType("Int", (), False, "kotlin.Int")
    assert parse_type("List<Int?>?") == KotlinType("List", (KotlinType("Int", (), True, "Int?"),), True, "List<Int?>?")
    assert parse_type("kotlin.collections.Map<String,List<Int>>") == KotlinType(
        "Map",
        (KotlinType("String", (), False, "String"), KotlinType("List", (int_type,), False, "List<Int>")),
        False,
        "kotlin.collections.Map<String, List<Int>>",
    )
    assert parse_type("java.time.LocalDate") == KotlinType("java.time.LocalDate", (), False, "java.time.LocalDate")
    assert parse_type("Pair<Int, Int>") is not None  # a type the translator has no literals for, but a type
    for unreadable in ["List<out Number>", "List<*>", "(Int) -> Int", "List<Int, Int>", "Map<String>", "Int<X>", ""]:
        assert parse_type(unreadable) is None, unreadable


def typed(parameters: dict[str, object], cell: str) -> str:
    """The declarations of ``parameters`` after a parameters cell ``cell``, without the heading comment."""
    text = declarations(parameters, "P", declared_parameters(cell), _read_yaml)
    return text.removeprefix("// P\n")


def _read_yaml(text: str) -> object:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ValueError(getattr(error, "problem", None)) from None


def test_a_declared_type_gives_the_literal_that_type() -> None:
    assert typed({"n": 5}, "val n = 10") == "val n = 5\n"
    assert typed({"n": 5}, "val n: Int = 10") == "val n = 5\n"
    assert typed({"n": -5}, "val n: kotlin.Int = 10") == "val n = -5\n"
    assert typed({"n": 5}, "val n = 10L") == "val n = 5L\n"
    assert typed({"n": 5}, "val n: Long = 10") == "val n = 5L\n"
    assert typed({"x": 5}, "val x = 1.5") == "val x = 5.0\n"
    assert typed({"x": 0.25}, "val x: Double = 1.0") == "val x = 0.25\n"
    assert typed({"x": float("nan")}, "val x = 1.0") == "val x = Double.NaN\n"
    assert typed({"x": 5}, "val x = 1.5f") == "val x = 5.0f\n"
    assert typed({"x": 0.1}, "val x: Float = 1f") == "val x = 0.1f\n"
    assert typed({"x": float("-inf")}, "val x: Float = 1f") == "val x = Float.NEGATIVE_INFINITY\n"
    assert typed({"s": "5 $"}, 'val s = "a"') == 'val s = "5 \\$"\n'
    assert typed({"on": False}, "val on = true") == "val on = false\n"
    assert typed({"n": -(2**31)}, "val n = 1") == "val n = Int.MIN_VALUE\n"  # -2147483648 would be a Long
    assert typed({"n": -(2**63)}, "val n = 1L") == "val n = Long.MIN_VALUE\n"


def test_a_var_stays_a_var_and_a_nullable_type_is_written() -> None:
    assert typed({"x": 5}, "var x: Double = 1.0") == "var x = 5.0\n"
    assert typed({"x": 5}, "var x = someCall()") == "var x = 5L\n"  # a var of a type not read
    assert typed({"n": 5}, "val n: Int? = null") == "val n: Int? = 5\n"
    assert typed({"n": None}, "val n: Int? = 3") == "val n: Int? = null\n"
    assert typed({"xs": None}, "val xs: List<Int>? = null") == "val xs: List<Int>? = null\n"


def test_a_string_for_a_declared_collection_is_read_as_yaml() -> None:
    # papermill's -p flags '[1,2]' gives the str "[1,2]"
    assert typed({"flags": "[1,2]"}, "val flags = listOf(0)") == "val flags = listOf(1, 2)\n"
    assert typed({"flags": "[1,2]"}, "val flags: List<Long> = listOf()") == "val flags = listOf(1L, 2L)\n"
    assert typed({"flags": "[1, 2]"}, "val flags: List<Double> = listOf()") == "val flags = listOf(1.0, 2.0)\n"
    assert typed({"flags": "[1,2]"}, "val flags = mutableListOf(0)") == "val flags = mutableListOf(1, 2)\n"
    assert typed({"tags": "[a, b]"}, 'val tags = setOf("x")') == 'val tags = setOf("a", "b")\n'
    assert typed({"cfg": "{a: 1}"}, 'val cfg = mapOf("x" to 2)') == 'val cfg = mapOf("a" to 1)\n'
    assert typed({"cfg": '{"a": [1]}'}, "val cfg: MutableMap<String, List<Long>> = mutableMapOf()") == (
        'val cfg = mutableMapOf("a" to listOf(1L))\n'
    )
    # a collection whose item types are not known gets each item's own literal
    assert typed({"xs": "[1, a]"}, "val xs = listOf(a, b)") == 'val xs = listOf<Any>(1L, "a")\n'
    assert typed({"cfg": "{a: 1}"}, "val cfg = mapOf(k to v)") == 'val cfg = mapOf("a" to 1L)\n'
    assert typed({"xs": "[]"}, "val xs = setOf(a)") == "val xs = emptySet<Any?>()\n"
    # a declared String stays a string, whatever it looks like; an undeclared parameter too
    assert typed({"name": "[1,2]"}, 'val name = "a"') == 'val name = "[1,2]"\n'
    assert typed({"other": "[1,2]"}, "val flags = listOf(0)") == 'val other = "[1,2]"\n'


def test_declared_collections_get_typed_items_and_their_type_when_it_is_not_inferred() -> None:
    assert typed({"xs": [1, 2]}, "val xs = listOf(0)") == "val xs = listOf(1, 2)\n"
    assert typed({"xs": (1, 2)}, "val xs: Set<Long> = setOf()") == "val xs = setOf(1L, 2L)\n"
    assert typed({"xs": []}, "val xs = listOf(0)") == "val xs = emptyList<Int>()\n"
    assert typed({"xs": []}, "val xs = mutableListOf(0)") == "val xs = mutableListOf<Int>()\n"
    assert typed({"m": {}}, "val m: Map<String, Int> = mapOf()") == "val m = emptyMap<String, Int>()\n"
    assert typed({"m": {}}, "val m = mutableMapOf(1 to 2)") == "val m = mutableMapOf<Int, Int>()\n"
    assert typed({"xs": [1, None]}, "val xs: List<Int?> = listOf()") == "val xs = listOf<Int?>(1, null)\n"
    assert typed({"xs": [1, "a"]}, "val xs: List<Any> = listOf()") == 'val xs = listOf<Any>(1L, "a")\n'
    assert typed({"xs": [[1], []]}, "val xs = listOf(listOf(0))") == "val xs = listOf(listOf(1), emptyList<Int>())\n"
    assert typed({"m": {"a": [1.5]}}, "val m: Map<String, List<Float>> = mapOf()") == (
        'val m = mapOf("a" to listOf(1.5f))\n'
    )
    assert typed({"m": {"a": 1, "b": None}}, "val m = emptyMap<String, Any?>()") == (
        'val m = mapOf<String, Any?>("a" to 1L, "b" to null)\n'
    )


def test_a_type_not_read_or_a_name_not_declared_keeps_the_values_own_literal() -> None:
    cell = "val d: java.time.LocalDate = today()\nval p: Pair<Int, Int> = 1 to 2\nval c = f(1)\nval xs: List<*> = l"
    assert typed({"d": 5, "p": [1, 2], "c": 1.5, "xs": "[1]", "new": 5}, cell) == (
        'val d = 5L\nval p = listOf(1L, 2L)\nval c = 1.5\nval xs = "[1]"\nval new = 5L\n'
    )


def test_a_value_that_cannot_have_the_declared_type_is_an_error_naming_it() -> None:
    def error(parameters: dict[str, object], cell: str) -> str:
        with pytest.raises(KotlinParameterError) as raised:
            typed(parameters, cell)
        return str(raised.value)

    assert error({"n": "x"}, "val n = 10") == (
        "parameter 'n': 'x' (str) is not an Int; the parameters cell declares n as Int"
    )
    assert error({"n": 2**31}, "val n: Int = 1") == (
        "parameter 'n': 2147483648 does not fit in Int (-2147483648..2147483647); the parameters cell declares n as Int"
    )
    assert error({"n": 2**63}, "val n = 1L") == (
        "parameter 'n': 9223372036854775808 does not fit in Long (-9223372036854775808..9223372036854775807); "
        "the parameters cell declares n as Long"
    )
    assert error({"n": 1.5}, "val n = 1").startswith("parameter 'n': 1.5 (float) is not an Int;")
    assert error({"n": True}, "val n = 1").startswith("parameter 'n': True (bool) is not an Int;")
    assert error({"n": None}, "val n = 1").startswith("parameter 'n': None (NoneType) is not an Int;")
    assert error({"on": "true"}, "val on = false").startswith("parameter 'on': 'true' (str) is not a Boolean;")
    assert error({"x": 1e39}, "val x = 1f") == (
        "parameter 'x': 1e+39 does not fit in Float; the parameters cell declares x as Float"
    )
    assert error({"x": 10**400}, "val x = 1.0").startswith("parameter 'x': 1000")
    assert error({"name": 5}, 'val name = "a"') == (
        "parameter 'name': 5 (int) is not a String; the parameters cell declares name as String "
        "(papermill's -p reads numbers, True, False and None; -r passes text as it is)"
    )
    assert error({"flags": "[1,2"}, "val flags = listOf(0)") == (
        "parameter 'flags': '[1,2' is not YAML (expected ',' or ']', but got '<stream end>'); "
        "the parameters cell declares flags as List<Int>"
    )
    assert error({"flags": "[1, x]"}, "val flags = listOf(0)") == (
        "parameter 'flags'[1]: 'x' (str) is not an Int; the parameters cell declares flags as List<Int>"
    )
    assert error({"flags": "3"}, "val flags = listOf(0)") == (
        "parameter 'flags': '3' (str) is not a List<Int>; the parameters cell declares flags as List<Int>"
    )
    assert error({"cfg": {"a": 1}}, "val cfg = listOf(0)").startswith("parameter 'cfg': {'a': 1} (dict) is not a")
    assert error({"cfg": {1: 1}}, 'val cfg = mapOf("a" to 1)') == (
        "parameter 'cfg' (a key): 1 (int) is not a String; the parameters cell declares cfg as Map<String, Int> "
        "(papermill's -p reads numbers, True, False and None; -r passes text as it is)"
    )
