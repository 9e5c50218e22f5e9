"""The papermill translator (kotlin_llm_kernel.papermill_parameters) in papermill's own registry and API, without a
kernel: found for the kernel name and the language, its cell, its inspection and its errors."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from kotlin_llm_kernel.papermill_parameters import KotlinTranslator
from papermill.exceptions import PapermillException
from papermill.iorw import load_notebook_node
from papermill.models import Parameter
from papermill.parameterize import parameterize_notebook
from papermill.translators import papermill_translators, translate_parameters


def test_papermill_finds_it_by_kernel_name_then_by_language() -> None:
    assert papermill_translators.find_translator("kotlin-llm", "kotlin") is KotlinTranslator
    # -k kotlin-llm on a notebook saved from another kernel still gets Kotlin
    assert papermill_translators.find_translator("kotlin-llm", "python") is KotlinTranslator
    # another Kotlin kernel (JetBrains' `kotlin`) gets it through the language
    assert papermill_translators.find_translator("kotlin", "kotlin") is KotlinTranslator
    assert papermill_translators.find_translator("python3", "python") is not KotlinTranslator


def test_the_injected_cell_of_the_issues_command_line() -> None:
    # what `-p n 5 -p name x -p flags '[1,2]'` gives papermill: -p reads numbers, True/False/None, else a string
    assert translate_parameters("kotlin-llm", "kotlin", {"n": 5, "name": "x", "flags": "[1,2]"}) == (
        '// Parameters\nval n = 5L\nval name = "x"\nval flags = "[1,2]"\n'
    )
    # -y 'flags: [1, 2]' gives a list
    assert translate_parameters("kotlin-llm", "kotlin", {"flags": [1, 2]}) == (
        "// Parameters\nval flags = listOf(1L, 2L)\n"
    )


def test_the_base_class_api_gives_the_same_texts() -> None:
    assert KotlinTranslator.translate({"a": [1, None]}) == 'mapOf("a" to listOf(1L, null))'
    assert KotlinTranslator.translate_str("$x") == '"\\$x"'
    assert KotlinTranslator.translate_float(float("inf")) == "Double.POSITIVE_INFINITY"
    assert KotlinTranslator.comment("Parameters") == "// Parameters"
    assert KotlinTranslator.assign("object", "1L") == "val `object` = 1L"


def test_parameterize_notebook_injects_after_the_parameters_cell(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "kotlin-llm", "language": "kotlin", "display_name": "Kotlin (LLM)"}}
    )
    defaults = nbformat.v4.new_code_cell("val n = 1")
    defaults.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_code_cell("// intro"), defaults, nbformat.v4.new_code_cell("n * 2")]
    nbformat.write(nb, tmp_path / "in.ipynb")
    # papermill's loader adds the metadata that parameterize_notebook expects
    result = parameterize_notebook(load_notebook_node(str(tmp_path / "in.ipynb")), {"n": 5, "xs": []})
    assert [cell.source for cell in result.cells] == [
        "// intro",
        "val n = 1",
        "// Parameters\nval n = 5L\nval xs = emptyList<Any?>()\n",
        "n * 2",
    ]
    assert result.cells[2].metadata["tags"] == ["injected-parameters"]


def test_inspection_gives_papermill_parameters() -> None:
    cell = nbformat.v4.new_code_cell('val n = 3 // how many\nval name: String = "x"\nval cfg = mapOf("a" to 1)')
    assert KotlinTranslator.inspect(cell) == [
        Parameter("n", "Int", "3", "how many"),
        Parameter("name", "String", '"x"', ""),
        Parameter("cfg", "None", 'mapOf("a" to 1)', ""),
    ]


def test_a_parameter_without_a_kotlin_form_is_a_papermill_error_naming_it() -> None:
    with pytest.raises(PapermillException) as error:
        translate_parameters("kotlin-llm", "kotlin", {"n": 1, "a.b": 2})
    assert str(error.value) == (
        "parameter 'a.b': not a Kotlin name, even in backticks (it contains '.'); "
        "rename it (letters, digits and _ always work)"
    )
    with pytest.raises(PapermillException, match=r"^parameter 'raw'\[0\]: bytes has no Kotlin literal"):
        translate_parameters("kotlin-llm", "kotlin", {"raw": [b"\x00"]})
