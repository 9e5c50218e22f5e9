"""Python values as Kotlin source (kotlin_llm_kernel.kotlin_literals), without a kernel; that the Kotlin compiler
accepts the texts, with these types and values, is checked by tests/test_papermill.py."""

from __future__ import annotations

import datetime

import pytest
from kotlin_llm_kernel.kotlin_literals import (
    Declared,
    KotlinParameterError,
    Literal,
    declarations,
    declared_parameters,
    kotlin_literal,
    kotlin_name,
    kotlin_string,
)


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


def test_strings_escape_what_kotlin_would_read_otherwise() -> None:
    assert kotlin_string('say "hi"') == r'"say \"hi\""'
    assert kotlin_string("$HOME and ${x}") == r'"\$HOME and \${x}"'
    assert kotlin_string("C:\\dir\\n") == r'"C:\\dir\\n"'
    assert kotlin_string("a\nb\r\tc\bd") == r'"a\nb\r\tc\bd"'
    assert kotlin_string("") == '""'
    assert kotlin_string("it's") == '"it\'s"'


def test_printable_unicode_stays_and_invisible_characters_are_escaped() -> None:
    assert kotlin_string("é 日本 😀 Ω") == '"é 日本 😀 Ω"'
    assert kotlin_string("\x00\x07\x1b\x7f") == r'"\u0000\u0007\u001B\u007F"'
    # zero-width space, a right-to-left override, a byte order mark: would be invisible in the cell
    assert kotlin_string("a\u200bb\u202ec\ufeff") == r'"a\u200Bb\u202Ec\uFEFF"'
    assert kotlin_string("no\u00a0break\u2028line\u3000") == r'"no\u00A0break\u2028line\u3000"'
    # a lone surrogate (from a command line that was not UTF-8) and private use beyond U+FFFF as UTF-16 escapes
    assert kotlin_string("\udcff") == r'"\uDCFF"'
    assert kotlin_string("\U000f0001") == r'"\uDB80\uDC01"'


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
        Declared("name", "String", '"a // b"', "who is greeted"),
        Declared("flags", "List<Int>", "listOf( 1, 2, )", "the flags"),
        Declared("my-name", "Long", "2L", ""),
        Declared("ratio", "Double", "1.5", ""),
        Declared("small", "Float", "1e-3f", ""),
        Declared("on", "Boolean", "true", ""),
        Declared("c", "Char", "'x'", ""),
        Declared("cfg", "None", 'mapOf("a" to 1)', ""),
        Declared("indented", "Double?", "null", ""),
    ]
    assert declared_parameters("") == []
    assert declared_parameters("println(1)\nfun f() = 2") == []
