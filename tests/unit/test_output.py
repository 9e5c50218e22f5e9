"""Coalescing a cell's output and cutting it past the limit (kotlin_llm_kernel.jupyter.cell_output), no kernel."""

from __future__ import annotations

from kotlin_llm_kernel.jupyter.cell_output import OutputBudget, coalesce


def test_adjacent_chunks_of_a_stream_are_joined_in_order() -> None:
    chunks = [("stdout", "a"), ("stdout", "b"), ("stderr", "c"), ("stdout", "d"), ("stdout", "e")]
    assert coalesce(chunks) == [("stdout", "ab"), ("stderr", "c"), ("stdout", "de")]


def test_empty_chunks_are_dropped_and_do_not_separate_a_stream() -> None:
    assert coalesce([("stdout", "a"), ("stderr", ""), ("stdout", "b")]) == [("stdout", "ab")]
    assert coalesce([("stdout", "")]) == []
    assert coalesce([]) == []


def test_text_within_the_limit_is_shown_whole() -> None:
    budget = OutputBudget(limit=10)
    assert budget.admit("hello") == "hello"
    assert budget.admit("world") == "world"
    assert budget.shown == 10
    assert budget.notice() is None


def test_text_past_the_limit_is_cut_and_counted() -> None:
    budget = OutputBudget(limit=8)
    assert budget.admit("line 1\n") == "line 1\n"
    assert budget.admit("line 2\nline 3\n") == "l"
    assert budget.admit("line 4\n") == ""
    assert (budget.shown, budget.cut_chars, budget.cut_lines) == (8, 13 + 7, 3)


def test_the_notice_tells_what_was_cut_and_which_setting_to_change() -> None:
    budget = OutputBudget(limit=1000)
    budget.admit("x" * 1000 + "\n" * 1234 + "y" * 765)
    assert budget.notice() == (
        "\n[kotlin-llm] output cut: the last 1,999 characters (1,234 lines) of this cell were not shown, past the "
        "limit of 1,000 characters (KotlinKernel.max_output_chars).\n"
    )


def test_a_zero_limit_shows_everything() -> None:
    budget = OutputBudget(limit=0)
    text = "z" * 100_000
    assert budget.admit(text) == text
    assert budget.notice() is None
