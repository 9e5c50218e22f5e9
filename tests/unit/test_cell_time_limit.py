"""The time limit per cell: reading the setting and the gateway's variable, and the error of a cell past it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from kotlin_llm_kernel.config.kernel_config import load
from kotlin_llm_kernel.config.request import SessionRequest
from kotlin_llm_kernel.config.time_limit import ENV_CELL_TIME_LIMIT, TimeLimitError, checked_limit, parse_limit
from kotlin_llm_kernel.session.policy.interrupts import Unstoppable, interrupted_cell_error
from kotlin_llm_kernel.session.policy.time_limit_error import time_limit_outcome
from kotlin_llm_kernel.session.results import Error, Value
from traitlets import TraitError

EXPECTED = "give a number of seconds, 0 or more (e.g. 30 or 2.5; 0: no limit)"
HINT = (
    "hint: split the work into shorter cells, or raise the limit (setting cell_time_limit; KERNEL_CELL_TIME_LIMIT "
    "when a gateway starts the kernel)"
)


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", "")
    monkeypatch.delenv(ENV_CELL_TIME_LIMIT, raising=False)
    return tmp_path


def test_the_variable_gives_the_default_and_empty_means_none() -> None:
    assert parse_limit("30") == 30.0
    assert parse_limit(" 2.5 ") == 2.5
    assert parse_limit("0") == 0.0
    assert parse_limit("") == 0.0


@pytest.mark.parametrize(
    ("text", "problem"),
    [("soon", "'soon' is not a number"), ("-5", "'-5' is negative"), ("inf", "'inf' is not a finite number")],
)
def test_a_bad_variable_names_itself_and_what_to_give(text: str, problem: str) -> None:
    with pytest.raises(TimeLimitError) as raised:
        parse_limit(text)
    assert str(raised.value) == f"{ENV_CELL_TIME_LIMIT}: {problem}; {EXPECTED}"


def test_a_bad_value_is_refused_by_the_request_too() -> None:
    assert checked_limit(3) == 3.0
    with pytest.raises(TimeLimitError, match=r"^cell_time_limit: True is not a number"):
        SessionRequest(cell_time_limit=True)
    with pytest.raises(TimeLimitError, match=r"^cell_time_limit: -0.5 is negative"):
        SessionRequest(cell_time_limit=-0.5)


def test_the_setting_wins_over_the_variable(config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load([]).request.session.cell_time_limit == 0.0, "no limit by default"
    monkeypatch.setenv(ENV_CELL_TIME_LIMIT, "7")
    assert load([]).request.session.cell_time_limit == 7.0
    assert load(["--KotlinKernel.cell_time_limit=0"]).request.session.cell_time_limit == 0.0
    (config_dir / "kotlin_llm_kernel_config.py").write_text("c.KotlinKernel.cell_time_limit = 12.5\n")
    assert load([]).request.session.cell_time_limit == 12.5


def test_a_bad_setting_or_variable_stops_the_load(config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TraitError) as raised:
        load(["--KotlinKernel.cell_time_limit=-1"])
    assert str(raised.value) == f"cell_time_limit: -1.0 is negative; {EXPECTED}"
    monkeypatch.setenv(ENV_CELL_TIME_LIMIT, "soon")
    with pytest.raises(TraitError, match=rf"^{ENV_CELL_TIME_LIMIT}: 'soon' is not a number"):
        load([])
    assert load(["--KotlinKernel.cell_time_limit=3"]).request.session.cell_time_limit == 3.0, "not read when set"


def _interrupted(ename: str, evalue: str, *lines: str) -> Error:
    message = "\n".join([f"{ename}: {evalue}", *lines])
    return Error(phase="EVALUATION", message=message, ename=ename, evalue=evalue, stdout="before\n")


def test_an_interrupted_cell_says_the_limit_above_the_interrupt_s_report() -> None:
    interrupted = _interrupted(
        "java.lang.InterruptedException", "sleep interrupted", "  at <snippet body>(snippet3.kts:1)"
    )
    outcome = time_limit_outcome(interrupted, 3, 2.5)
    assert isinstance(outcome, Error)
    assert outcome.ename == "TimeLimitExceeded"
    assert outcome.evalue == (
        "snippet3.kts ran longer than the time limit of 2.5 s (setting cell_time_limit) and was interrupted; the "
        "session keeps its state"
    )
    assert outcome.traceback == [
        f"TimeLimitExceeded: {outcome.evalue}",
        "java.lang.InterruptedException: sleep interrupted",
        "  at <snippet body>(snippet3.kts:1)",
        HINT,
    ]
    assert (outcome.phase, outcome.stdout) == ("EVALUATION", "before\n")


def test_a_limit_of_one_run_says_so_and_hints_at_that_run() -> None:
    interrupted = _interrupted("java.lang.InterruptedException", "sleep interrupted")
    outcome = time_limit_outcome(interrupted, 3, 2, own=True)
    assert isinstance(outcome, Error)
    assert outcome.evalue == (
        "snippet3.kts ran longer than the time limit of 2 s (a limit of this run alone) and was interrupted; the "
        "session keeps its state"
    )
    assert outcome.traceback[-1] == "hint: split the work into shorter cells, or give this run more time"


def test_a_cell_cut_while_it_compiled_or_not_stopped_says_so() -> None:
    engine_words = "the engine's words for a snippet cancelled while it compiled"
    compiling = interrupted_cell_error(Unstoppable(4, (), compiling=True), engine_words)
    assert compiling.evalue == engine_words
    assert compiling.not_run
    assert compiling.snippet_number == 4
    assert time_limit_outcome(compiling, 4, 5).evalue == (
        "snippet4.kts ran longer than the time limit of 5 s (setting cell_time_limit) while it compiled and was "
        "cancelled: it did not run; the session keeps its state"
    )
    stuck = interrupted_cell_error(Unstoppable(5, ("java.io.FileInputStream.readBytes(Native Method)",), False), "-")
    outcome = time_limit_outcome(stuck, 5, 60)
    assert outcome.evalue == (
        "snippet5.kts ran longer than the time limit of 60 s (setting cell_time_limit) and did not stop when "
        "interrupted: it runs on"
    )
    assert outcome.traceback[1:3] == [
        "SnippetNotStopped: snippet5.kts did not stop when interrupted and runs on",
        "  at java.io.FileInputStream.readBytes(Native Method)",
    ]


def test_a_value_stays_a_value() -> None:
    caught = Value(value="caught", text="caught")
    assert time_limit_outcome(caught, 6, 1) is caught


def test_a_cell_that_did_not_run_is_told_by_the_fact_not_by_its_words() -> None:
    words = "the snippet was cancelled while it compiled: it did not run"
    from_the_engine = _interrupted("java.lang.InterruptedException", "the engine may say it otherwise")
    not_run = time_limit_outcome(replace(from_the_engine, not_run=True), 7, 3)
    assert isinstance(not_run, Error) and not_run.not_run
    assert not_run.evalue.endswith("while it compiled and was cancelled: it did not run; the session keeps its state")
    ran = time_limit_outcome(_interrupted("java.lang.InterruptedException", words), 8, 3)
    assert isinstance(ran, Error)
    assert ran.evalue.endswith(" and was interrupted; the session keeps its state"), "the words decide nothing"
