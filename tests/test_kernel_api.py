"""JetBrains' kernel API over the real protocol, as a notebook written for that kernel uses it: its display names,
``USE {}``, ``notebook`` and ``Out``, descriptors, magics run through the host, and a library's own integration
(the fixtures the setup step built: tests/integration_fixtures.py), each cell's output as a Jupyter client sees it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from integration_fixtures import FX, FX_BROKEN, FX_BROKEN_MISSING, FX_JS, FX_THROWS, FX_THROWS_MESSAGE, repository_url
from kernel_client import Cell, execute

pytestmark = pytest.mark.usefixtures("kernel")


@pytest.fixture(scope="module")
def kc(kernel: tuple[Any, Any]) -> Any:
    return kernel[1]


def result_data(cell: Cell) -> dict[str, Any]:
    results = cell.outputs("execute_result")
    assert len(results) == 1, cell.outputs
    data: dict[str, Any] = results[0]["content"]["data"]
    return data


def test_the_apis_display_names_need_no_import(kc: Any) -> None:
    cell = execute(kc, 'MIME(MimeTypes.HTML to "<p>x</p>", MimeTypes.PLAIN_TEXT to "x")')
    assert cell.status == "ok", cell.error
    assert result_data(cell) == {"text/html": "<p>x</p>", "text/plain": "x"}
    cell = execute(kc, 'mimeResult(MimeTypes.MARKDOWN to "**b**")')
    assert result_data(cell)["text/markdown"] == "**b**"


def test_use_renders_the_cells_own_value_and_out_holds_the_results(kc: Any) -> None:
    cell = execute(
        kc,
        'class Temperature(val c: Int)\nUSE { render<Temperature> { HTML("<b>${it.c} °C</b>") } }\nTemperature(21)',
    )
    assert cell.status == "ok", cell.error
    assert result_data(cell)["text/html"] == "<b>21 °C</b>"
    first = execute(kc, "6 * 7")
    number = first.content["execution_count"]
    cell = execute(kc, f"(Out[{number}] as Int) + notebook.cellsList.size * 0")
    assert cell.result == "42"


def test_a_librarys_integration_loads_with_its_dependency(kc: Any) -> None:
    cell = execute(kc, f'@file:Repository("{repository_url()}")\n@file:DependsOn("{FX}")\n"fx"')
    assert cell.status == "ok", cell.error
    shown = [output["content"]["data"].get("text/html") for output in cell.outputs("display_data")]
    assert "fx loaded" in shown
    assert f'<script type="text/javascript">\n{FX_JS}\n</script>' in shown
    assert result_data(execute(kc, "Fx(3)"))["text/html"] == "<b>fx 3</b>"
    assert execute(kc, '"$fxLoaded $fxAnswer"').result == "true 42"


def test_an_integration_built_for_a_newer_api_or_throwing_leaves_one_line(kc: Any) -> None:
    cell = execute(kc, f'@file:Repository("{repository_url()}")\n@file:DependsOn("{FX_BROKEN}")\n1')
    assert cell.status == "ok", cell.error
    assert cell.stderr == (
        f"[kotlin-llm] fxbroken 1.0's notebook integration needs {FX_BROKEN_MISSING}, which this kernel's JetBrains "
        "API 0.19.0.944 lacks: loaded without its integration\n"
    )
    cell = execute(kc, f'@file:Repository("{repository_url()}")\n@file:DependsOn("{FX_THROWS}")\n2')
    assert cell.status == "ok", cell.error
    assert cell.result == "2"
    assert cell.stderr.startswith(
        "[kotlin-llm] error: fxthrows 1.0 (FxThrowsIntegration): its init code (onLoaded) threw "
        f"IllegalStateException: {FX_THROWS_MESSAGE}"
    )


def test_a_descriptor_file_loads_with_use(kc: Any, tmp_path: Path) -> None:
    descriptor = tmp_path / "answer.json"
    descriptor.write_text('{"properties": {"n": "1"}, "init": ["val descriptorAnswer = $n * 2"]}', encoding="utf-8")
    cell = execute(kc, f"%use @file[{descriptor.as_posix()}](n=21)\ndescriptorAnswer")
    assert cell.status == "ok", cell.error
    assert cell.result == "42"


def test_magics_work_in_code_the_host_runs(kc: Any) -> None:
    assert execute(kc, 'EXECUTE("%trackExecution")').status == "ok"
    cell = execute(kc, "val tracked = 1")
    assert cell.stdout == "Executing:\nval tracked = 1\n"
    assert execute(kc, "%trackExecution off").status == "ok"


def test_serialization_is_on_the_classpath_without_use(kc: Any) -> None:
    cell = execute(kc, "import kotlinx.serialization.json.*\nJson.encodeToString(JsonArray(listOf(JsonPrimitive(1))))")
    assert cell.status == "ok", cell.error
    assert cell.result == "[1]"
