"""DataFrame's column accessors over the real protocol: after a cell that declares or changes a frame (or declares a
``@DataSchema`` type), the next cell can write ``df.age`` and ``df.filter { age > 16 }``, with DataFrame loaded by a
plain ``@file:DependsOn`` and by ``%use``, from the real artifacts the setup step fetched (:mod:`libraries`), offline.
The hidden snippets that declare the accessors take no cell number."""

from __future__ import annotations

from typing import Any

import pytest

from kernel_client import Cell, execute, running_kernel
from libraries import DATAFRAME, library_kernel_arguments


@pytest.fixture(scope="module")
def kernel(library_kernel: Any) -> Any:
    """The module's library kernel with `df`, declared after a plain `@file:DependsOn` (no `%use`)."""
    cell = execute(
        library_kernel,
        f'@file:DependsOn("{DATAFRAME}")\nimport org.jetbrains.kotlinx.dataframe.api.*\n'
        'val df = dataFrameOf("name", "age")("Alice", 15, "Bob", 20)',
    )
    assert cell.status == "ok", cell.error
    return library_kernel


def _ok(kernel: Any, code: str) -> Cell:
    cell = execute(kernel, code)
    assert cell.status == "ok", cell.error
    assert cell.stderr == ""
    return cell


def test_the_columns_of_a_declared_frame_are_properties_in_the_next_cell(kernel: Any) -> None:
    assert _ok(kernel, "df.age.max()").result == "20"
    assert _ok(kernel, "df.filter { age > 16 }.name.toList()").result == "[Bob]"


def test_the_cell_numbers_stay_the_users(kernel: Any) -> None:
    declaring = _ok(kernel, 'val numbered = dataFrameOf("n")(1)')
    number = declaring.content["execution_count"] + 1
    cell = execute(kernel, "numbered.m")
    assert cell.content["execution_count"] == number
    assert cell.error is not None
    assert cell.error["traceback"] == [
        f"snippet{number}.kts:1:10: error: Unresolved reference 'm' on receiver of type 'DataFrame<_DataFrameType1>'.",
        "  | numbered.<error>m</error>",
    ]


def test_a_var_given_another_frame_has_its_columns(kernel: Any) -> None:
    _ok(kernel, 'var frame = dataFrameOf("a")(1, 2)')
    _ok(kernel, 'frame = frame.add("b") { a * 10 }')
    assert _ok(kernel, "frame.b.toList()").result == "[10, 20]"
    _ok(kernel, 'frame = dataFrameOf("c")("x")')
    assert _ok(kernel, "frame.c.toList()").result == "[x]"


def test_nested_columns(kernel: Any) -> None:
    _ok(kernel, 'val grouped = df.group { name and age }.into("person")')
    assert _ok(kernel, "grouped.person.age.toList()").result == "[15, 20]"


def test_a_data_schema_interface_types_the_frames_cast_to_it(kernel: Any) -> None:
    _ok(
        kernel,
        "import org.jetbrains.kotlinx.dataframe.annotations.DataSchema\n"
        "@DataSchema interface Person { val name: String; val age: Int }",
    )
    assert _ok(kernel, "df.cast<Person>().filter { age > 16 }.name.toList()").result == "[Bob]"
    assert _ok(kernel, 'df.cast<Person>()[1].let { "${it.name} is ${it.age}" }').result == "Bob is 20"


def test_accessors_that_do_not_compile_are_one_line_on_stderr(kernel: Any) -> None:
    cell = execute(
        kernel, 'private class Secret(val x: Int)\nval secrets = dataFrameOf("s")(Secret(1))\nsecrets.rowsCount()'
    )
    assert cell.status == "ok", cell.error
    assert cell.result == "1"
    assert cell.stderr == (
        "[kotlin-llm] the column accessors of `secrets` could not be generated: their code does not compile: "
        "'public' property exposes its 'private-in-class' type argument 'Secret'.\n"
    )
    assert _ok(kernel, "secrets.rowsCount()").result == "1"


def test_vars_lists_no_hidden_declaration_and_dataframes_own(kernel: Any) -> None:
    _ok(kernel, 'val listed = dataFrameOf("v")(1)')
    lines = (_ok(kernel, "vars()").result or "").splitlines()
    assert [line.split(" = ")[0] for line in lines] == [
        "val df: DataFrame<*>",
        # declared by DataFrame's own notebook integration, loaded with the cell declaring df
        "val dataFrameConfig: JupyterConfiguration",
        "val numbered: DataFrame<*>",
        "var frame: DataFrame<*>",
        "val grouped: DataFrame<_DataFrameType>",
        "interface Person",
        "class Secret",
        "val secrets: DataFrame<*>",
        "val listed: DataFrame<*>",
    ]
    assert lines[-1] == "val listed: DataFrame<*> =    v…"
    # a var reassigned after its hidden redeclaration shows its current frame
    assert lines[3] == "var frame: DataFrame<*> =    c…"


def test_with_use_dataframe(tmp_path_factory: pytest.TempPathFactory) -> None:
    with running_kernel(extra_arguments=library_kernel_arguments(tmp_path_factory.mktemp("local-repo"))) as (_, kc):
        cell = execute(kc, '%use dataframe(0.15.0)\nval df = dataFrameOf("name", "age")("Alice", 15, "Bob", 20)')
        assert cell.status == "ok", cell.error
        assert _ok(kc, "df.filter { age > 16 }.name.toList()").result == "[Bob]"
