"""Completion by static type over the real protocol (jupyter_client), in one kernel: a table of cases (receivers from
the stdlib, the JDK, earlier cells and a ``@file:DependsOn`` library; generics, nullable receivers, extensions, named
arguments, scopes, incomplete code, keywords), the offsets on a line with emoji and tabs, the types' metadata, and a
session that completions leave as it was."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from kernel_client import Cell, execute, request, running_kernel, warm_up
from maven_repository import add_artifact, served

CIRCLE = (
    "package com.example.shapes;\n"
    "public class Circle {\n"
    "    private final double radius;\n"
    "    public Circle(double radius) { this.radius = radius; }\n"
    "    public double getRadius() { return radius; }\n"
    "    public double area() { return Math.PI * radius * radius; }\n"
    "    public Circle scaled(double by) { return new Circle(radius * by); }\n"
    "}\n"
)

SESSION = """\
val xs = listOf(1, 2, 3)
val ms = mutableListOf("a")
data class P(val name: String, val age: Int)
val p = P("a", 1)
fun greet(name: String, times: Int = 1) = name.repeat(times)
val s = "text"
val f = java.io.File("x")
val ys: List<Int>? = null
fun Int.double() = this * 2
enum class Color { RED, GREEN }
class Box<T>(val item: T) { fun peek(): T = item }
val box = Box(42)
object Registry { val names = listOf("x"); fun lookup(n: String) = n }
val ages = mapOf("a" to 1)
val seq = sequenceOf(1, 2)
val sb = StringBuilder()
val today = java.time.LocalDate.of(2024, 1, 1)"""

#: A cell that fails to compile: completion still works after it, and does not see what it declared.
FAILING = 'val broken: Int = "no"\nfun brokenFun() = 1'

TYPES = {
    "function",
    "property",
    "class",
    "interface",
    "object",
    "enum",
    "enum entry",
    "typealias",
    "variable",
    "parameter",
    "keyword",
}


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("repo")
    add_artifact(root, "com.example", "shapes", "1.0", {"com.example.shapes.Circle": CIRCLE})
    with served(root) as url:
        yield url


@pytest.fixture(scope="module")
def kc(repository: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One kernel for the module: the library's cell, the session's declarations, an import, then a failing cell."""
    local: Path = tmp_path_factory.mktemp("local-repo")
    arguments = [f"--KotlinKernel.local_repository={local}", f"--KotlinKernel.repositories={json.dumps([repository])}"]
    with running_kernel(extra_arguments=arguments) as (_, client):
        warm_up(client)
        library = execute(
            client,
            '@file:DependsOn("com.example:shapes:1.0")\nimport com.example.shapes.Circle\nval circle = Circle(2.0)',
        )
        assert library.status == "ok", library.error
        for code in (SESSION, "import java.time.DayOfWeek\nval dow = DayOfWeek.MONDAY"):
            cell = execute(client, code)
            assert cell.status == "ok", cell.error
        failing = execute(client, FAILING)
        assert failing.status == "error" and failing.content["ename"] == "CompilationError", failing.content
        yield client


def complete(kc: Any, code: str, cursor: int | None = None) -> dict[str, Any]:
    """The complete_reply's content for ``code`` at ``cursor`` (default: its end), checked for the reply's shape:
    each ``_jupyter_types_experimental`` item spans the replaced range and has the text of the match of its index."""
    cursor = len(code) if cursor is None else cursor
    reply = request(kc, "complete_request", code=code, cursor_pos=cursor)["content"]
    assert reply["status"] == "ok", reply
    matches = reply["matches"]
    items = reply["metadata"].get("_jupyter_types_experimental", [])
    assert [item["text"] for item in items] == matches
    for item in items:
        assert (item["start"], item["end"]) == (reply["cursor_start"], reply["cursor_end"]), item
        assert item["type"] in TYPES, item
    assert len(set(matches)) == len(matches), matches
    return reply


def case(
    code: str,
    first: Sequence[str] = (),
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    types: dict[str, tuple[str, str]] | None = None,
    cursor: int | None = None,
    *,
    id: str,
    bug: str | None = None,
) -> Any:
    """A row of the table: the ``first`` matches in this order, matches ``include``d and ``exclude``d, and some
    ``types`` (text → (type, signature)); ``bug`` marks a row the completion gets wrong (strict xfail)."""
    marks = [pytest.mark.xfail(reason=bug, strict=True)] if bug else []
    return pytest.param(code, cursor, list(first), set(include), set(exclude), types or {}, id=id, marks=marks)


CASES = [
    # stdlib receivers
    case(
        "listOf(1).ma",
        first=[
            "map",
            "mapIndexed",
            "mapIndexedNotNull",
            "mapIndexedNotNullTo",
            "mapIndexedTo",
            "mapNotNull",
            "mapNotNullTo",
            "mapTo",
            "max",
            "maxBy",
            "maxByOrNull",
            "maxOf",
        ],
        types={"map": ("function", "inline fun <T, R> Iterable<T>.map(transform: (T) -> R): List<R>")},
        id="list-literal-ma",
    ),
    case(
        "xs.",
        first=["contains", "containsAll", "equals", "forEach", "get"],
        include=["map", "filter", "joinToString", "size", "first", "sorted", "sum"],
        exclude=["add", "clear", "set", "sort", "remove", "removeAt"],
        id="list-members-and-extensions",
    ),
    case(
        "ms.",
        first=["add", "addAll", "clear"],
        include=["remove", "set", "sort", "map", "removeLast"],
        id="mutable-list",
    ),
    case(
        "s.up",
        first=["uppercase"],
        types={"uppercase": ("function", "inline fun String.uppercase(): String")},
        id="string-up",
    ),
    case(
        "s.",
        include=["length", "substring", "uppercase", "get", "trim", "split"],
        exclude=["charAt", "getBytes", "getClass", "toCharArray()"],
        id="string-members-no-java-names",
    ),
    case(
        "s.toU",
        first=[
            "toUByte",
            "toUByteOrNull",
            "toUInt",
            "toUIntOrNull",
            "toULong",
            "toULongOrNull",
            "toUShort",
            "toUShortOrNull",
            "toUpperCase",
        ],
        types={"toUpperCase": ("function", "@Deprecated inline fun String.toUpperCase(): String")},
        id="string-deprecated-last",
    ),
    case(
        "xs.map { it.to",
        first=["toByte", "toChar", "toDouble", "toFloat", "toInt", "toLong", "toShort", "toString", "to"],
        types={"toDouble": ("function", "fun toDouble(): Double")},
        id="lambda-it-int",
    ),
    case("xs.map { i", first=["it"], types={"it": ("parameter", "it: Int")}, id="lambda-it-in-scope"),
    case(
        "xs.su",
        first=["subList", "subtract", "sum", "sumOf", "sumBy", "sumByDouble"],
        types={"sum": ("function", "fun Iterable<Int>.sum(): Int")},
        id="ints-sum-deprecated-last",
    ),
    case('listOf("a").su', first=["subList", "subtract", "sumOf"], exclude=["sum"], id="strings-no-int-sum"),
    case(
        "ages.ge",
        first=["get", "getOrDefault", "getOrElse"],
        types={"get": ("function", "operator fun get(key: String): Int?")},
        id="map-get",
    ),
    case(
        "seq.fi",
        first=["filter", "filterIndexed"],
        types={"filter": ("function", "fun <T> Sequence<T>.filter(predicate: (T) -> Boolean): Sequence<T>")},
        id="sequence-filter",
    ),
    case(
        "sb.app",
        first=["append", "appendCodePoint", "appendLine", "appendRange", "apply", "appendln"],
        id="string-builder-append",
    ),
    case("(1..3).", include=["first", "last", "step", "sum", "map", "contains"], id="int-range"),
    case(
        "xs.to",
        first=["toArray", "toString", "to", "toCollection", "toHashSet", "toIntArray", "toList"],
        id="members-before-extensions",
    ),
    case('"abc".sub', first=["subSequence", "substring", "substringAfter", "substringAfterLast"], id="string-literal"),
    # JDK receivers
    case(
        "f.",
        include=["absolutePath", "name", "parent", "isFile", "exists", "readText"],
        exclude=["getAbsolutePath", "getName", "getParent"],
        types={
            "absolutePath": ("property", "val absolutePath: String!"),
            "exists": ("function", "fun exists(): Boolean"),
        },
        id="file-properties-not-getters",
    ),
    case(
        "f.",
        exclude=["prefixLength", "isInvalid"],
        id="file-no-package-private-getters",
    ),
    case(
        "sb.",
        exclude=["coder", "value", "isLatin1"],
        id="string-builder-no-package-private-getters",
    ),
    case(
        "Math.",
        first=["abs", "absExact", "acos", "addExact"],
        include=["max", "sqrt", "PI", "E"],
        types={"PI": ("property", "val PI: Double")},
        id="java-static-members",
    ),
    case("Math.e", first=["exp", "expm1", "E"], id="case-sensitive-prefix-first"),
    case(
        "java.time.LocalDate.",
        first=["EPOCH", "from", "MAX", "MIN", "now", "of", "ofEpochDay", "ofInstant", "ofYearDay", "parse"],
        exclude=["plusDays", "year"],
        types={"now": ("function", "fun now(): LocalDate!")},
        id="java-qualified-statics",
    ),
    case("today.plus", first=["plus", "plusDays", "plusMonths", "plusWeeks", "plusYears"], id="local-date-plus"),
    case("java.time.", include=["LocalDate", "Duration", "Instant", "DayOfWeek"], id="java-package"),
    # declarations of earlier cells
    case(
        "p.",
        first=["age", "component1", "component2", "copy", "equals", "hashCode", "name", "toString"],
        types={
            "age": ("property", "val age: Int"),
            "copy": ("function", "fun copy(name: String = …, age: Int = …): P"),
        },
        id="data-class",
    ),
    case(
        "Color.",
        first=["entries", "GREEN", "RED", "valueOf", "values"],
        types={"entries": ("property", "val entries: EnumEntries<Color>")},
        id="enum-class",
    ),
    case(
        "Color.",
        types={"RED": ("enum entry", "Color.RED")},
        id="enum-entry-type",
    ),
    case(
        "Registry.",
        first=["equals", "hashCode", "lookup", "names", "toString"],
        types={"lookup": ("function", "fun lookup(n: String): String")},
        id="object",
    ),
    case(
        "box.",
        first=["equals", "hashCode", "item", "peek", "toString"],
        types={"item": ("property", "val item: Int"), "peek": ("function", "fun peek(): Int")},
        id="generic-class",
    ),
    case("class Q { val inside = 1; fun g() = ins", first=["inside"], id="member-of-enclosing-class"),
    # a @file:DependsOn library
    case(
        "circle.",
        first=["area", "equals", "hashCode", "radius", "scaled", "toString"],
        exclude=["getRadius"],
        types={"radius": ("property", "val radius: Double"), "area": ("function", "fun area(): Double")},
        id="library-instance",
    ),
    case(
        "Circle(1.0).sc",
        first=["scaled"],
        types={"scaled": ("function", "fun scaled(p0: Double): Circle!")},
        id="library-constructor-call",
    ),
    case("com.example.shapes.", first=["Circle"], id="library-package"),
    case(
        "val c2: Circ",
        include=["Circle"],
        id="library-class-imported-earlier",
    ),
    case(
        "DayOfW",
        first=["DayOfWeek"],
        id="jdk-class-imported-earlier",
    ),
    case(
        "import java.time.DayOfWeek\nDayOfW",
        first=["DayOfWeek"],
        types={"DayOfWeek": ("enum", "enum class DayOfWeek")},
        id="class-imported-in-the-cell",
    ),
    # generics
    case(
        "box.peek().",
        include=["plus", "toString", "coerceAtLeast", "double", "downTo"],
        exclude=["length"],
        id="type-argument-int",
    ),
    case('Box("x").peek().le', first=["length", "let"], id="type-argument-string"),
    case("listOf(p).map { it.", include=["name", "age", "copy"], id="lambda-parameter-of-session-class"),
    case('Pair(1, "a").', include=["first", "second", "toList", "copy"], id="pair"),
    # nullable receivers
    case("ys?.fi", first=["filter", "filterIndexed", "filterIndexedTo", "filterIsInstance"], id="safe-call"),
    case("ys.", include=["size", "filter", "isNullOrEmpty", "orEmpty"], id="nullable-receiver-without-safe-call"),
    case("ys!!.si", first=["size", "single", "singleOrNull"], id="not-null-assertion"),
    case("xs.firstOrNull()?.", include=["double", "plus", "toString"], id="nullable-int"),
    # extension functions declared in a cell
    case("5.dou", first=["double"], types={"double": ("function", "fun Int.double(): Int")}, id="session-extension"),
    case("s.dou", exclude=["double"], id="session-extension-other-receiver"),
    # named arguments
    case(
        'greet("a", ti',
        first=["times = "],
        types={"times = ": ("parameter", "times: Int = 1")},
        id="named-argument-session-function",
    ),
    case("p.copy(ag", first=["age = ", "ages"], id="named-argument-copy"),
    case(
        "xs.joinToString(sep",
        first=["separator = "],
        types={"separator = ": ("parameter", "separator: CharSequence = …")},
        id="named-argument-stdlib",
    ),
    case("P(na", first=["name = ", "naturalOrder"], id="named-argument-constructor"),
    case("greet(", first=["name = ", "times = "], include=["xs", "greet"], id="named-arguments-first"),
    case(
        'xs.joinToString(prefix = "[", ',
        include=["separator = ", "postfix = "],
        exclude=["prefix = "],
        id="named-argument-already-passed",
    ),
    # names in scope
    case(
        "gre",
        first=["greet"],
        types={"greet": ("function", "fun greet(name: String, times: Int = 1): String")},
        id="session-function",
    ),
    case("pri", first=["print", "println", "private"], id="imported-functions-then-keyword"),
    case("with(p) { ag", first=["age", "ages"], id="with-receiver-members-first"),
    case("buildString { app", first=["append"], include=["appendLine", "apply"], id="lambda-with-receiver"),
    case(
        "buildString { app",
        exclude=["appendNull", "appendChars"],
        id="lambda-with-receiver-no-private-members",
    ),
    case("fun f(a: Any) { if (a is String) a.len", first=["length"], id="smart-cast-if"),
    case("fun f(a: Any) = when (a) { is String -> a.len", first=["length"], id="smart-cast-when"),
    case("xs.fold(0) { acc, x -> ac", first=["acc"], types={"acc": ("parameter", "acc: Int")}, id="lambda-parameters"),
    case("for (item in xs) { ite", first=["item"], types={"item": ("variable", "val item: Int")}, id="loop-variable"),
    case(
        "try { 1 } catch (ex: Exception) { ex.mes",
        first=["message"],
        types={"message": ("property", "val message: String?")},
        id="catch-parameter",
    ),
    # incomplete code
    case("xs.filter { it > 1 }.", include=["map", "size", "first"], exclude=["add"], id="after-closed-lambda"),
    case("if (true) { xs.fi", first=["filter", "filterIndexed"], id="unclosed-block"),
    case("xs.filter { it > 1 }.map { (it", first=["it"], id="unclosed-lambda-and-parenthesis"),
    case("xs.filter { it > 1 }", cursor=5, first=["filter", "filterIndexed"], id="cursor-inside-a-word"),
    case('greet("a", ti)\nval after = 1', cursor=13, first=["times = "], id="cursor-before-more-lines"),
    # after a cell that failed to compile
    case("brok", exclude=["broken", "brokenFun"], id="failed-cell-declares-nothing"),
    case("p.na", first=["name"], id="completion-works-after-failed-cell"),
    # keywords
    case("whi", first=["while"], types={"while": ("keyword", "while")}, id="keyword"),
    case("val x = if (tr", first=["truncate", "Transient", "Triple", "true", "try"], id="classes-then-keywords"),
    case("val q: Li", first=["LinkedHashMap", "LinkedHashSet", "List", "ListIterator"], id="type-position"),
    # signatures and types
    case(
        "Str",
        first=["Strictfp", "String", "StringBuilder"],
        types={"String": ("class", "class String")},
        id="string-is-a-class",
    ),
    case(
        "ages.getOrEl",
        first=["getOrElse"],
        types={"getOrElse": ("function", "inline fun <K, V> Map<K, V>.getOrElse(key: K, defaultValue: () -> V): V")},
        id="receiver-with-two-type-arguments",
    ),
]


@pytest.mark.parametrize(("code", "cursor", "first", "include", "exclude", "types"), CASES)
def test_completion(
    kc: Any,
    code: str,
    cursor: int | None,
    first: list[str],
    include: set[str],
    exclude: set[str],
    types: dict[str, tuple[str, str]],
) -> None:
    reply = complete(kc, code, cursor)
    matches = reply["matches"]
    if first or include or types:
        assert reply["metadata"]["kotlin_llm"]["source"] == "types", reply["metadata"]
    assert matches[: len(first)] == first
    assert include <= set(matches), sorted(include - set(matches))
    assert not exclude & set(matches), sorted(exclude & set(matches))
    items = {
        item["text"]: (item["type"], item["signature"])
        for item in reply["metadata"].get("_jupyter_types_experimental", [])
    }
    assert {text: items.get(text) for text in types} == types


def test_offsets_are_code_points_on_a_line_with_emoji_and_tabs(kc: Any) -> None:
    for code in ('val e = "😀😀"\n\txs.fi', '\tval e = "😀\t😀"; \t xs.fi'):
        reply = complete(kc, code)
        assert (reply["cursor_start"], reply["cursor_end"]) == (len(code) - 2, len(code)), code
        assert reply["matches"][:2] == ["filter", "filterIndexed"]
    code = '\t"😀".let { \tit.le } // 😀'
    cursor = code.index(" }")
    reply = complete(kc, code, cursor)
    assert (reply["cursor_start"], reply["cursor_end"]) == (cursor - 2, cursor)
    assert reply["matches"][:2] == ["length", "let"]


def test_the_types_metadata(kc: Any) -> None:
    code = "\txs.si"
    [size, *_] = complete(kc, code)["metadata"]["_jupyter_types_experimental"]
    assert size == {"start": 4, "end": 6, "text": "size", "type": "property", "signature": "val size: Int"}
    expected = {
        "Bo": {"text": "Box", "type": "class", "signature": "class Box<T>"},
        "Reg": {"text": "Registry", "type": "object", "signature": "object Registry"},
        "Col": {"text": "Color", "type": "enum", "signature": "enum class Color"},
        "whe": {"text": "when", "type": "keyword", "signature": "when"},
        'greet("a", na': {"text": "name = ", "type": "parameter", "signature": "name: String"},
        "xs.joinTo": {
            "text": "joinTo",
            "type": "function",
            "signature": (
                "fun <T, A : Appendable> Iterable<T>.joinTo(buffer: A, separator: CharSequence = …,"
                " prefix: CharSequence = …, postfix: CharSequence = …, limit: Int = …, truncated: CharSequence = …,"
                " transform: ((T) -> CharSequence)? = …): A"
            ),
        },
    }
    for code, item in expected.items():
        items = complete(kc, code)["metadata"]["_jupyter_types_experimental"]
        assert {k: v for k, v in items[0].items() if k not in ("start", "end")} == item, code
    data_class = complete(kc, "P")["metadata"]["_jupyter_types_experimental"]
    assert {"type": "class", "signature": "data class P"} in [
        {"type": item["type"], "signature": item["signature"]} for item in data_class if item["text"] == "P"
    ]


def snippet(cell: Cell) -> str:
    return f"snippet{cell.content['execution_count']}.kts"


def test_completions_leave_the_session_as_it_was(kc: Any) -> None:
    before = execute(kc, "xs.size")
    assert before.status == "ok" and before.result == "3"
    assert before.kotlin_llm["snippet"] == snippet(before)
    codes = [
        "val onlyInCompletion = 1\nonlyIn",
        "fun onlyInCompletionFun() = 2\nonlyInCompletionF",
        "xs.",
        "p.copy(ag",
        "class OnlyInCompletion\nOnlyIn",
        "import java.util.UUID\nUU",
        "s.up",
        "whi",
        "ys?.fi",
        "circle.ar",
    ]
    for code in codes * 2:
        assert complete(kc, code)["matches"], code
    after = execute(kc, "xs.size + 1")
    assert after.status == "ok" and after.result == "4"
    assert after.content["execution_count"] == before.content["execution_count"] + 1
    assert after.kotlin_llm["snippet"] == snippet(after)
    for name in ("onlyInCompletion", "onlyInCompletionFun()", "OnlyInCompletion()", "UUID.randomUUID()"):
        missing = execute(kc, name)
        assert missing.status == "error" and missing.content["ename"] == "CompilationError", name
        reference = name.split("(")[0].split(".")[0]
        assert missing.content["evalue"] == f"{snippet(missing)}:1:1: error: Unresolved reference '{reference}'."
    assert complete(kc, "onlyIn")["matches"] == []
