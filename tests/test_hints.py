"""Errors an agent can fix in one step, over the real protocol: the hint line of the report, and every diagnostic as
data in the ``execute_reply`` metadata (``kotlin_llm.diagnostics``) and in the Python API's ``Error``; a suggested
fix applied then runs."""

from __future__ import annotations

from typing import Any

from kotlin_llm_kernel import Diagnostic, Error, ScriptSession, SessionOptions

from kernel_client import execute
from libraries import DATETIME, KTOR_CLIENT


def _diagnostics(cell: Any) -> list[dict[str, Any]]:
    diagnostics: list[dict[str, Any]] = cell.kotlin_llm["diagnostics"]
    return diagnostics


def test_an_unresolved_class_gets_its_import_in_the_report_and_in_the_metadata(library_kernel: Any) -> None:
    cell = execute(library_kernel, "val d = LocalDate.of(2024, 1, 31)")
    assert cell.status == "error"
    number = cell.content["execution_count"]
    assert cell.error is not None
    assert cell.error["traceback"] == [
        f"snippet{number}.kts:1:9: error: Unresolved reference 'LocalDate'.",
        "  | val d = <error>LocalDate</error>.of(2024, 1, 31)",
        "hint: import java.time.LocalDate",
    ]
    assert _diagnostics(cell) == [
        {
            "severity": "error",
            "name": "UNRESOLVED_REFERENCE",
            "message": "Unresolved reference 'LocalDate'.",
            "start": {"line": 1, "column": 9},
            "end": {"line": 1, "column": 18},
            "hints": {"imports": ["java.time.LocalDate"], "names": [], "dependency": None},
            "hint": "import java.time.LocalDate",
            "follow_on_errors": 0,
        }
    ]
    fixed = execute(library_kernel, "import java.time.LocalDate\nLocalDate.of(2024, 1, 31).dayOfWeek")
    assert fixed.result == "WEDNESDAY", fixed.error


def test_a_misspelt_call_with_a_lambda_gets_the_name_meant_and_its_follow_on_error_counted(library_kernel: Any) -> None:
    cell = execute(library_kernel, "val xs = listOf(1, 2, 3)\nxs.fitler { it > 1 }")
    assert cell.error is not None
    number = cell.content["execution_count"]
    assert cell.error["traceback"] == [
        f"snippet{number}.kts:2:4: error: Unresolved reference 'fitler' on receiver of type 'List<Int>'.",
        "  | xs.<error>fitler</error> { it > 1 }",
        "hint: did you mean 'filter'?",
        "(1 more error follows from this one)",
    ]
    [diagnostic] = _diagnostics(cell)
    assert (diagnostic["hints"], diagnostic["follow_on_errors"]) == (
        {"imports": [], "names": ["filter"], "dependency": None},
        1,
    )


def test_a_missing_library_gets_its_dependency_which_then_loads(library_kernel: Any) -> None:
    cell = execute(library_kernel, "import io.ktor.client.*\nHttpClient::class.simpleName")
    assert cell.error is not None
    number = cell.content["execution_count"]
    assert cell.error["traceback"][:3] == [
        f"snippet{number}.kts:1:11: error: Unresolved reference 'ktor'.",
        "  | import io.<error>ktor</error>.client.*",
        'hint: add @file:DependsOn("io.ktor:ktor-client-core")',
    ]
    assert _diagnostics(cell)[0]["hints"]["dependency"] == "io.ktor:ktor-client-core"
    version = KTOR_CLIENT.rsplit(":", 1)[1]
    fixed = execute(
        library_kernel,
        f'@file:DependsOn("io.ktor:ktor-client-core:{version}")\nimport io.ktor.client.*\nHttpClient::class.simpleName',
    )
    assert fixed.result == "HttpClient", fixed.error


def test_a_dependency_s_classes_and_extensions_get_their_imports(library_kernel: Any) -> None:
    assert execute(library_kernel, f'@file:DependsOn("{DATETIME}")').status == "ok"
    cell = execute(library_kernel, "val p = DatePeriod(months = 1)")
    assert cell.error is not None
    assert cell.error["traceback"][2] == "hint: import kotlinx.datetime.DatePeriod"
    imports = "import kotlinx.datetime.LocalDate\nimport kotlinx.datetime.DateTimeUnit\n"
    cell = execute(library_kernel, imports + "LocalDate(2026, 1, 31).plus(1, DateTimeUnit.DAY)")
    assert cell.error is not None
    number = cell.content["execution_count"]
    # kotlinc's words, not the default-imported CoroutineScope.plus the compiler tried first
    assert cell.error["traceback"] == [
        f"snippet{number}.kts:3:24: error: Unresolved reference 'plus' on receiver of type 'LocalDate'.",
        "  | LocalDate(2026, 1, 31).<error>plus</error>(1, DateTimeUnit.DAY)",
        "hint: import kotlinx.datetime.plus",
    ]
    fixed = execute(
        library_kernel, imports + "import kotlinx.datetime.plus\nLocalDate(2026, 1, 31).plus(1, DateTimeUnit.DAY)"
    )
    assert fixed.result == "2026-02-01", fixed.error


def test_a_name_of_an_earlier_cell_is_the_name_meant(library_kernel: Any) -> None:
    assert execute(library_kernel, "val basketTotal = 41").status == "ok"
    cell = execute(library_kernel, "basketTotl + 1")
    assert cell.error is not None
    assert cell.error["traceback"][2] == "hint: did you mean 'basketTotal'?"
    assert execute(library_kernel, "basketTotal + 1").result == "42"


def test_a_value_s_warnings_are_data_too(library_kernel: Any) -> None:
    cell = execute(library_kernel, "val y = 1!!\ny")
    assert cell.status == "ok"
    [warning] = _diagnostics(cell)
    assert warning == {
        "severity": "warning",
        "name": "UNNECESSARY_NOT_NULL_ASSERTION",
        "message": "Unnecessary non-null assertion (!!) on a non-null receiver of type 'Int'.",
        "start": {"line": 1, "column": 10},
        "end": {"line": 1, "column": 12},
        "hints": {"imports": [], "names": [], "dependency": None},
        "hint": None,
        "follow_on_errors": 0,
    }


def test_the_python_api_s_error_has_the_same_diagnostics() -> None:
    with ScriptSession(options=SessionOptions(echo=False)) as session:
        result = session.execute('val word = "abc"\nword.lenght')
    assert isinstance(result, Error)
    assert result.diagnostics == (
        Diagnostic(
            severity="error",
            name="UNRESOLVED_REFERENCE",
            message="Unresolved reference 'lenght' on receiver of type 'String'.",
            start=(2, 6),
            end=(2, 12),
            names=("length",),
            hint="did you mean 'length'?",
        ),
    )
