"""The MCP server's pure parts: texts cut with the whole kept in a file, outcomes as tool results, the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from kotlin_llm_kernel.mcp.__main__ import parse
from kotlin_llm_kernel.mcp.bounded import TEXT_LIMIT, bound
from kotlin_llm_kernel.mcp.kotlin_session import JvmSettings
from kotlin_llm_kernel.mcp.progress import LastLine
from kotlin_llm_kernel.mcp.results import run_result
from kotlin_llm_kernel.session.results import Error, ResolvedDependency, Value


def test_a_text_that_fits_is_kept_as_is() -> None:
    assert bound("abc", "stdout", limit=3).text == "abc"
    assert bound("abc", "stdout", limit=3).full_text_file is None


def test_a_longer_text_is_cut_and_kept_whole_in_a_file() -> None:
    cut = bound("abcd€", "stderr", limit=3)
    assert cut.text == "abc" and cut.full_text_file is not None
    path = Path(cut.full_text_file)
    assert path.name.endswith("-stderr.txt") and path.read_text(encoding="utf-8") == "abcd€"
    path.unlink()


def test_a_value_with_versions_and_warnings() -> None:
    value = Value(
        "x",
        "x",
        warnings=("a warning",),
        resolved=(ResolvedDependency("g:a", "1.0"),),
        stdout="out",
    )
    result = run_result(value, 4)
    assert result.is_error is False
    assert result.structured_content == {
        "status": "ok",
        "snippet": "snippet4.kts",
        "value": "x",
        "stdout": "out",
        "stderr": "",
        "error": None,
        "ename": None,
        "phase": None,
        "warnings": ["a warning"],
        "diagnostics": [],
        "resolved_versions": {"g:a": "1.0"},
        "truncated": False,
        "full_text_files": {},
    }
    assert result.content[0].text == "snippet4.kts: ok: x\n\nstdout:\nout\n\na warning"  # type: ignore[union-attr]


def test_the_text_content_carries_the_whole_result_for_clients_that_show_only_text() -> None:
    error = Error(
        "EVALUATION", "java.lang.Exception: boom\n  at x", "java.lang.Exception", "boom\nmore", stderr="err\n"
    )
    result = run_result(error, 2)
    assert result.is_error is True
    assert result.content[0].text == (  # type: ignore[union-attr]
        "snippet2.kts: java.lang.Exception\n\nstderr:\nerr\n\n\njava.lang.Exception: boom\n  at x"
    )
    lines = run_result(Value("a\nb", "a\nb"), 3)
    assert lines.content[0].text == "snippet3.kts: ok: a…\n\nvalue:\na\nb"  # type: ignore[union-attr]


def test_a_long_value_is_cut() -> None:
    result = run_result(Value("y" * 20_001, "y" * 20_001), 1)
    assert result.structured_content is not None
    path = result.structured_content["full_text_files"]["value"]
    assert result.structured_content["value"] == "y" * 20_000 and result.structured_content["truncated"] is True
    assert Path(path).read_text(encoding="utf-8") == "y" * 20_001
    Path(path).unlink()


def test_the_command_line() -> None:
    settings = parse(["--repository", "http://r1/", "--repository", "http://r2/", "--cell-time-limit", "5"])
    options = settings.options
    assert options.repositories == ("http://r1/", "http://r2/") and options.cell_time_limit == 5
    assert options.local_repository is None and options.echo is False
    assert settings.jvm == JvmSettings() and settings.text_limit == TEXT_LIMIT and settings.http_port is None
    settings = parse(["--max-heap", "1g", "--jvm-option=-Da=1", "--jvm-option=-Db=2", "--max-output-chars", "50"])
    assert settings.jvm == JvmSettings("1g", ("-Da=1", "-Db=2")) and settings.text_limit == 50
    assert parse(["--http", "8123"]).http_port == 8123
    for wrong in (["extra"], ["--max-output-chars", "0"], ["--http", "x"]):
        with pytest.raises(SystemExit):
            parse(wrong)


def test_progress_quotes_the_last_printed_line() -> None:
    last = LastLine()
    assert last.message(3.4) == "running for 3 s"
    last.printed("stdout", "epoch 1\nepo")
    assert last.message(12) == "running for 12 s; last printed: epoch 1"
    last.printed("stderr", "ch 2\n\n  \n")
    assert last.line == "epoch 2"
    last.printed("stdout", "x" * 200 + "\n")
    assert last.line == "x" * 120 + "…"
