"""papermill on kotlin-llm notebooks: its real CLI and its Python API, each in a process of its own that imports
nothing of ours, inject a Kotlin parameters cell (through the package's entry point), and the kernel runs it with
the values and types the parameters had."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import nbformat
import psutil
import pytest
from nbformat.v4 import new_code_cell, new_notebook

PAPERMILL = str(Path(sys.executable).with_name("papermill"))
TIMEOUT = 240  # catches a hang only: a run starts one kernel on a busy machine
MARK = "KOTLIN_LLM_PAPERMILL_TEST"

# The parameters cell of both notebooks: the defaults a run replaces, whose types the injected values take.
DEFAULTS = (
    "val n = 1 // how many\n"
    'val name = "nobody" // who is greeted\n'
    "val flags = listOf(0)\n"
    'val note = ""\n'
    "val cfg = emptyMap<String, Any?>()\n"
    "var ratio: Double = 0.5\n"
    "val scale = 1.5f\n"
    'val tags = mutableSetOf("a")\n'
    "val limit: Int? = null"
)
# What the CLI run passes: the command line, a string that needs escapes, a raw string and YAML values.
NOTE = 'say "hi" to $USER\n\tC:\\dir é 😀\u200b'
# The same text as a Kotlin literal written by hand, not by the translator.
NOTE_IN_KOTLIN = r'"say \"hi\" to \$USER\n\tC:\\dir é 😀\u200B"'
YAML = (
    "ids: [1, 2, 3]\n"
    "cfg: {depth: 2, ratio: 0.5, tags: [a, b], none: null}\n"
    "mixed: [1, a, null]\n"
    "empty: []\n"
    "big: 12345678901234567890123\n"
    "huge: .inf\n"
    "tiny: 1.0e-5\n"
    "none: .nan\n"
    "class: true\n"
    "my-name: -7\n"
)


def notebook(path: Path, *cells: str) -> Path:
    """A notebook on kotlin-llm as JupyterLab saves one (kernelspec and language_info), whose first cell is the
    tagged parameters cell."""
    nb = new_notebook(
        metadata={
            "kernelspec": {"name": "kotlin-llm", "language": "kotlin", "display_name": "Kotlin (LLM)"},
            "language_info": {"name": "kotlin"},
        }
    )
    defaults = new_code_cell(DEFAULTS)
    defaults.metadata["tags"] = ["parameters"]
    nb.cells = [defaults, *(new_code_cell(cell) for cell in cells)]
    nbformat.write(nb, path)
    return path


def run(command: list[str], mark: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Runs ``command`` with ``mark`` in its environment, which the kernel it starts inherits; afterwards no process
    carrying the mark may be left."""
    completed = subprocess.run(
        command, env=os.environ | {MARK: mark}, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT
    )
    _, alive = psutil.wait_procs(marked(mark), timeout=30)
    assert alive == [], f"left running after papermill ended: {[p.cmdline() for p in alive]}"
    return completed


def marked(mark: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        try:
            # the class-data sharing helper is detached on purpose: it outlives the kernel that started it
            if process.environ().get(MARK) == mark and "kotlin_llm_kernel.cds" not in process.cmdline():
                found.append(process)
        except (psutil.AccessDenied, psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
    return found


def stdout_of(cell: Any) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


def result_of(cell: Any) -> str:
    [result] = [o for o in cell.outputs if o.output_type == "execute_result"]
    text: str = result.data["text/plain"]
    return text


def no_errors(nb: Any) -> None:
    errors = [o for cell in nb.cells for o in cell.get("outputs", []) if o.output_type == "error"]
    assert errors == []


def test_the_cli_injects_kotlin_parameters_that_the_cells_compute_with(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    notebook(
        tmp_path / "in.ipynb",
        "println(n * 2)\n"
        "println(n::class)\n"
        "repeat(n) { print(it) }\n"  # compiles only with an Int n
        "println()\n"
        "println(name.length)\n"
        "println(flags.sum())\n"
        "println(flags.sum()::class)\n"
        "ratio += 0.5\n"  # compiles only with a var Double ratio
        "println(ratio)\n"
        "println(scale::class)\n"
        'println(tags.add("d"))\n'  # compiles only with a MutableSet<String>
        "println(limit?.plus(1))\n"
        "println(raw::class)\n"
        "println(ids.sum())\n"
        'println(cfg["tags"])\n'
        "println(big + java.math.BigInteger.ONE)\n"
        "println(huge > Double.MAX_VALUE)\n"
        "println(`class` && true)\n"
        "println(`my-name` * 2)\n"
        f'println(System.getenv("{MARK}") == "{mark}")',
        f"println(note)\nnote == {NOTE_IN_KOTLIN}",
        "vars()",
    )
    command = [PAPERMILL, "in.ipynb", "out.ipynb", "-k", "kotlin-llm", "--start-timeout", "180"]
    # the command line, then more
    command += ["-p", "n", "5", "-p", "name", "x", "-p", "flags", "[1,2]"]
    command += ["-p", "note", NOTE, "-p", "ratio", "2", "-p", "scale", "2", "-p", "tags", "[b, c]", "-p", "limit", "3"]
    command += ["-r", "raw", "5"]
    command += ["-y", YAML]
    completed = run(command, mark, tmp_path)
    assert completed.returncode == 0, completed.stderr
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    no_errors(out)
    injected = out.cells[1]
    assert injected.metadata["tags"] == ["injected-parameters"]
    # papermill's order: the YAML's parameters, then -p's, then -r's
    assert injected.source == (
        "// Parameters\n"
        "val ids = listOf(1L, 2L, 3L)\n"
        'val cfg = mapOf<String, Any?>("depth" to 2L, "ratio" to 0.5, "tags" to listOf("a", "b"), "none" to null)\n'
        'val mixed = listOf<Any?>(1L, "a", null)\n'
        "val empty = emptyList<Any?>()\n"
        'val big = java.math.BigInteger("12345678901234567890123")\n'
        "val huge = Double.POSITIVE_INFINITY\n"
        "val tiny = 1e-05\n"
        "val none = Double.NaN\n"
        "val `class` = true\n"
        "val `my-name` = -7L\n"
        # the types of the parameters cell: n an Int, flags a List<Int> (papermill's -p gives the str "[1,2]",
        # read as YAML), ratio a var Double
        "val n = 5\n"
        'val name = "x"\n'
        "val flags = listOf(1, 2)\n"
        r'val note = "say \"hi\" to \$USER\n\tC:\\dir é 😀\u200B"' + "\n"
        "var ratio = 2.0\n"
        "val scale = 2.0f\n"
        'val tags = mutableSetOf("b", "c")\n'
        "val limit: Int? = 3\n"
        'val raw = "5"\n'
    )
    computed, printed, declared = out.cells[2:]
    assert stdout_of(computed) == (
        "10\nclass kotlin.Int\n01234\n1\n3\nclass kotlin.Int\n2.5\nclass kotlin.Float\ntrue\n4\n"
        "class kotlin.String\n6\n[a, b]\n"
        "12345678901234567890124\ntrue\ntrue\n-14\ntrue\n"
    )
    assert stdout_of(printed) == NOTE + "\n"
    assert result_of(printed) == "true"
    # vars() shows the static types the compiler gave the declarations, and their values
    assert result_of(declared) == (
        "val ids: List<Long> = [1, 2, 3]\n"
        'val cfg: Map<String, Any?> = {"depth"=2, "ratio"=0.5, "tags"=["a", "b"], "none"=null}\n'
        'val mixed: List<Any?> = [1, "a", null]\n'
        "val empty: List<Any?> = []\n"
        "val big: BigInteger = 12345678901234567890123\n"
        "val huge: Double = Infinity\n"
        "val tiny: Double = 1.0E-5\n"
        "val none: Double = NaN\n"
        "val class: Boolean = true\n"
        "val my-name: Long = -7\n"
        "val n: Int = 5\n"
        'val name: String = "x"\n'
        "val flags: List<Int> = [1, 2]\n"
        'val note: String = "say \\"hi\\" to $USER\\n\\tC:\\\\dir é 😀\u200b"\n'
        "var ratio: Double = 2.5\n"
        "val scale: Float = 2.0\n"
        'val tags: MutableSet<String> = ["b", "c", "d"]\n'
        "val limit: Int? = 3\n"
        'val raw: String = "5"'
    )


def test_the_python_api_needs_no_import_of_ours(tmp_path: Path) -> None:
    mark = uuid.uuid4().hex
    notebook(
        tmp_path / "in.ipynb",
        f'println(n * 2)\nprintln(name.length)\nprintln(flags.sum())\nprintln(cfg)\nprintln(System.getenv("{MARK}"))',
        "vars()",
    )
    # The user's process imports papermill only; our translator must come in through the entry point. It runs on
    # the engine that entry point names (the CLI test runs on papermill's default one).
    script = (
        "import papermill\n"
        "parameters = {'n': 5, 'name': 'x', 'flags': [1, 2], 'cfg': {'a': 1, 'b': [True, None]}}\n"
        "papermill.execute_notebook('in.ipynb', 'out.ipynb', parameters=parameters, kernel_name='kotlin-llm',\n"
        "    engine_name='kotlin-llm', progress_bar=False, start_timeout=180)\n"
    )
    completed = run([sys.executable, "-c", script], mark, tmp_path)
    assert completed.returncode == 0, completed.stderr
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    no_errors(out)
    assert out.cells[1].source == (
        "// Parameters\n"
        "val n = 5\n"
        'val name = "x"\n'
        "val flags = listOf(1, 2)\n"
        'val cfg = mapOf<String, Any?>("a" to 1L, "b" to listOf(true, null))\n'
    )
    assert stdout_of(out.cells[2]) == f"10\n1\n3\n{{a=1, b=[true, null]}}\n{mark}\n"
    # the default not passed (note) is kept; vars() lists the newest declarations in their order
    assert result_of(out.cells[3]) == (
        'val note: String = ""\n'
        "var ratio: Double = 0.5\n"
        "val scale: Float = 1.5\n"
        'val tags: MutableSet<String> = ["a"]\n'
        "val limit: Int? = null\n"
        "val n: Int = 5\n"
        'val name: String = "x"\n'
        "val flags: List<Int> = [1, 2]\n"
        'val cfg: Map<String, Any?> = {"a"=1, "b"=[true, null]}'
    )


@pytest.mark.parametrize("engine", ["nbclient", "kotlin-llm"])
def test_the_cell_is_injected_whichever_engine_is_named(tmp_path: Path, engine: str) -> None:
    notebook(tmp_path / "in.ipynb", "n")
    command = [PAPERMILL, "in.ipynb", "out.ipynb", "--prepare-only", "--engine", engine, "-p", "n", "5"]
    completed = run(command, uuid.uuid4().hex, tmp_path)
    assert completed.returncode == 0, completed.stderr
    out = nbformat.read(tmp_path / "out.ipynb", as_version=4)
    assert [cell.source for cell in out.cells] == [DEFAULTS, "// Parameters\nval n = 5\n", "n"]


def test_a_parameter_kotlin_cannot_declare_stops_papermill_before_any_kernel(tmp_path: Path) -> None:
    # a value of the wrong type for the parameters cell stops it the same way (tests/unit/test_papermill_translator.py)
    source = notebook(tmp_path / "in.ipynb", "n")
    before = source.read_bytes()
    mark = uuid.uuid4().hex
    completed = run([PAPERMILL, "in.ipynb", "out.ipynb", "-k", "kotlin-llm", "-p", "a.b", "1"], mark, tmp_path)
    assert completed.returncode == 1
    assert completed.stderr.splitlines()[-1] == (
        "kotlin_llm_kernel.papermill.parameters.KotlinParameterException: parameter 'a.b': not a Kotlin name, even "
        "in backticks (it contains '.'); rename it (letters, digits and _ always work)"
    )
    assert not (tmp_path / "out.ipynb").exists()
    assert source.read_bytes() == before


def test_help_notebook_lists_the_parameters_cell(tmp_path: Path) -> None:
    notebook(tmp_path / "in.ipynb", "n")
    completed = run([PAPERMILL, "in.ipynb", "--help-notebook"], uuid.uuid4().hex, tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split("\n\n", 1)[1] == (
        "Parameters inferred for notebook 'in.ipynb':\n"
        "  n: Int (default 1)              how many\n"
        '  name: String (default "nobody")\n'
        "                                  who is greeted\n"
        "  flags: List<Int> (default listOf(0))\n"
        '  note: String (default "")       \n'  # papermill pads the column of the help texts
        "  cfg: Map<String, Any?> (default emptyMap<String, Any?>())\n"
        "  ratio: Double (default 0.5)     \n"
        "  scale: Float (default 1.5f)     \n"
        '  tags: MutableSet<String> (default mutableSetOf("a"))\n'
        "  limit: Int? (default null)      \n"
    )


@pytest.fixture(autouse=True)
def _papermill_is_installed() -> None:
    if not Path(PAPERMILL).exists():
        pytest.fail(f"papermill is not installed beside {sys.executable}: pip install -e '.[test]'")
