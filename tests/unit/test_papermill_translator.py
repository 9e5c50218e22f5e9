"""The papermill translator (kotlin_llm_kernel.papermill.parameters) in papermill's own registry and API, without a
kernel: found for the kernel name and the language, its cell, its inspection and its errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
import pytest
from kotlin_llm_kernel.papermill.parameters import KotlinTranslator
from papermill.exceptions import PapermillException
from papermill.iorw import load_notebook_node
from papermill.models import Parameter
from papermill.parameterize import parameterize_notebook
from papermill.translators import papermill_translators, translate_parameters


def test_papermill_finds_it_by_kernel_name_then_by_language() -> None:
    assert papermill_translators.find_translator("kotlin-llm", "kotlin") is KotlinTranslator
    # -k kotlin-llm on a notebook saved from another kernel still gets Kotlin
    assert papermill_translators.find_translator("kotlin-llm", "python") is KotlinTranslator
    # the Kubernetes kernelspec says "python" (deploy/make-kernelspec.sh): its name gets Kotlin
    assert papermill_translators.find_translator("kotlin_llm_k8s", "python") is KotlinTranslator
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


def notebook(tmp_path: Path, parameters_cell: str) -> Any:
    """A kotlin-llm notebook with an intro cell, the tagged ``parameters_cell`` and a cell using it, loaded as
    papermill loads one (its loader adds the metadata that parameterize_notebook expects)."""
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "kotlin-llm", "language": "kotlin", "display_name": "Kotlin (LLM)"}}
    )
    defaults = nbformat.v4.new_code_cell(parameters_cell)
    defaults.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_code_cell("// intro"), defaults, nbformat.v4.new_code_cell("n * 2")]
    nbformat.write(nb, tmp_path / "in.ipynb")
    return load_notebook_node(str(tmp_path / "in.ipynb"))


def test_parameterize_notebook_injects_after_the_parameters_cell_with_its_types(tmp_path: Path) -> None:
    result = parameterize_notebook(notebook(tmp_path, "val n = 1"), {"n": 5, "xs": []})
    assert [cell.source for cell in result.cells] == [
        "// intro",
        "val n = 1",
        # n has the Int of the parameters cell; xs, not declared there, the default types
        "// Parameters\nval n = 5\nval xs = emptyList<Any?>()\n",
        "n * 2",
    ]
    assert result.cells[2].metadata["tags"] == ["injected-parameters"]


def test_the_issues_command_line_on_a_notebook_that_declares_its_parameters(tmp_path: Path) -> None:
    nb = notebook(tmp_path, 'val n = 1\nval name = "a"\nval flags = listOf(0)\nvar ratio: Float = 1f')
    # what `-p n 5 -p name x -p flags '[1,2]' -p ratio 2` gives papermill; flags is read as papermill reads -y
    parameters = {"n": 5, "name": "x", "flags": "[1,2]", "ratio": 2}
    assert parameterize_notebook(nb, parameters).cells[2].source == (
        '// Parameters\nval n = 5\nval name = "x"\nval flags = listOf(1, 2)\nvar ratio = 2.0f\n'
    )
    # dates in the YAML stay text, as papermill's -y leaves them
    nb = notebook(tmp_path, 'val days = listOf("2024-01-01")')
    assert parameterize_notebook(nb, {"days": "[2024-01-02]"}).cells[2].source == (
        '// Parameters\nval days = listOf("2024-01-02")\n'
    )
    # translate_parameters called on its own sees no notebook: the default types
    assert translate_parameters("kotlin-llm", "kotlin", parameters) == (
        '// Parameters\nval n = 5L\nval name = "x"\nval flags = "[1,2]"\nval ratio = 2L\n'
    )


def test_a_value_the_parameters_cell_does_not_allow_is_a_papermill_error(tmp_path: Path) -> None:
    with pytest.raises(PapermillException) as error:
        parameterize_notebook(notebook(tmp_path, "val n: Int = 1 // how many"), {"n": "five"})
    assert str(error.value) == "parameter 'n': 'five' (str) is not an Int; the parameters cell declares n as Int"


def test_inspection_gives_papermill_parameters() -> None:
    cell = nbformat.v4.new_code_cell('val n = 3 // how many\nval name: String = "x"\nval cfg = mapOf("a" to 1)')
    assert KotlinTranslator.inspect(cell) == [
        Parameter("n", "Int", "3", "how many"),
        Parameter("name", "String", '"x"', ""),
        Parameter("cfg", "Map<String, Int>", 'mapOf("a" to 1)', ""),
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
