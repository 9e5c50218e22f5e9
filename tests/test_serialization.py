"""kotlinx.serialization in a real kernel over the protocol: the compiler plugin the package bundles is on in every
cell, the runtime is the user's ``@file:DependsOn`` (the real artifact the setup step fetched, served offline as a
``file:`` repository), and the plugin can be turned off. The cells of a module build on each other, in order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from kernel_client import Cell, execute, running_kernel, warm_up
from libraries import SERIALIZATION_JSON, repository_url

IMPORTS = "import kotlinx.serialization.*\nimport kotlinx.serialization.json.*\n"
HINT = (
    "hint: a known limitation of the K2 REPL: the serializer() that kotlinx.serialization generates is not found on "
    "the class; write serializer<Person>() or Person.Companion.serializer()"
)


def _arguments(local: object, *jvm_options: str) -> list[str]:
    arguments = [
        f"--KotlinKernel.local_repository={local}",
        f"--KotlinKernel.repositories={json.dumps([repository_url()])}",
    ]
    if jvm_options:
        arguments.append(f"--KotlinKernel.jvm_options={json.dumps(list(jvm_options))}")
    return arguments


@pytest.fixture(scope="module")
def kc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with running_kernel(extra_arguments=_arguments(tmp_path_factory.mktemp("local-repo"))) as (_, client):
        warm_up(client)
        yield client


def _ok(kc: Any, code: str) -> Cell:
    cell = execute(kc, code)
    assert cell.status == "ok", cell.error
    return cell


def test_a_serializable_class_is_encoded_and_decoded_in_later_cells(kc: Any) -> None:
    cell = _ok(
        kc,
        f'@file:DependsOn("{SERIALIZATION_JSON}")\n{IMPORTS}'
        '@Serializable data class Person(val name: String, val age: Int)\nJson.encodeToString(Person("Alice", 15))',
    )
    assert cell.result == '{"name":"Alice","age":15}'
    assert _ok(kc, 'Json.decodeFromString<Person>("""{"name":"Bob","age":20}""")').result == "Person(name=Bob, age=20)"
    team = _ok(
        kc,
        '@Serializable data class Team(val members: List<Person>)\nJson.encodeToString(Team(listOf(Person("A", 1))))',
    )
    assert team.result == '{"members":[{"name":"A","age":1}]}'
    box = _ok(kc, '@Serializable data class Box<T>(val value: T)\nJson.encodeToString(Box(Person("C", 3)))')
    assert box.result == '{"value":{"name":"C","age":3}}'
    assert _ok(kc, 'Json.decodeFromString<Box<Int>>("""{"value":7}""")').result == "Box(value=7)"
    nested = _ok(
        kc,
        "@Serializable class Outer(val inner: Inner) { @Serializable data class Inner(val x: Int) }\n"
        "Json.encodeToString(Outer(Outer.Inner(5)))",
    )
    assert nested.result == '{"inner":{"x":5}}'
    assert _ok(kc, "serializer<Person>().descriptor.serialName").result == "Snippet2.Person"


def test_the_companions_serializer_gets_a_hint_whose_advice_runs(kc: Any) -> None:
    cell = execute(kc, "Person.serializer().descriptor.serialName")
    assert cell.status == "error"
    assert cell.content["ename"] == "CompilationError"
    assert cell.content["evalue"] == (
        f"snippet{cell.content['execution_count']}.kts:1:8: error: Unresolved reference 'serializer'."
    )
    assert cell.content["traceback"][1:] == ["  | Person.<error>serializer</error>().descriptor.serialName", HINT]
    assert _ok(kc, 'Json.encodeToString(serializer<Person>(), Person("D", 4))').result == '{"name":"D","age":4}'
    assert _ok(kc, "Person.Companion.serializer().descriptor.serialName").result == "Snippet2.Person"


def test_a_plain_data_class_of_an_earlier_cell_works_with_the_plugin_on(kc: Any) -> None:
    _ok(kc, "data class Q(val a: Int)")
    assert _ok(kc, "Q(3)").result == "Q(a=3)"


def test_an_empty_plugin_list_turns_the_plugin_off(tmp_path_factory: pytest.TempPathFactory) -> None:
    arguments = _arguments(tmp_path_factory.mktemp("local-repo-off"), "-Dkotlinllm.compiler.plugins=")
    with running_kernel(extra_arguments=arguments) as (_, client):
        cell = execute(
            client,
            f'@file:DependsOn("{SERIALIZATION_JSON}")\n{IMPORTS}'
            '@Serializable data class Person(val name: String)\nJson.encodeToString(Person("Alice"))',
        )
        assert cell.status == "error"
        assert cell.content["ename"] == "kotlinx.serialization.SerializationException"
        assert cell.content["evalue"] == (
            "Serializer for class 'Person' is not found.\nPlease ensure that class is marked as '@Serializable' "
            "and that the serialization compiler plugin is applied.\n"
        )
        assert _ok(client, "data class Q(val a: Int)\nQ(3)").result == "Q(a=3)"
