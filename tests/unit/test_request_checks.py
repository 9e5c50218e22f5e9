"""What is wrong with a request's content (kotlin_llm_kernel.jupyter.request_checks), without a kernel."""

from __future__ import annotations

from typing import Any

import pytest
from kotlin_llm_kernel.jupyter.request_checks import cursor_in, request_problem


@pytest.mark.parametrize(
    ("msg_type", "content", "problem"),
    [
        ("execute_request", {}, "`code` is missing"),
        ("execute_request", {"code": 5}, "`code` must be a string, not a number"),
        ("execute_request", {"code": None}, "`code` must be a string, not null"),
        ("execute_request", ["1 + 1"], "the content must be an object, not an array"),
        ("execute_request", {"code": "1", "silent": "no"}, "`silent` must be a boolean, not a string"),
        (
            "execute_request",
            {"code": "1", "user_expressions": []},
            "`user_expressions` must be an object, not an array",
        ),
        ("complete_request", {"cursor_pos": 1}, "`code` is missing"),
        ("complete_request", {"code": "ab"}, "`cursor_pos` is missing"),
        ("complete_request", {"code": "ab", "cursor_pos": "1"}, "`cursor_pos` must be an integer, not a string"),
        ("inspect_request", {"code": "ab", "cursor_pos": 1.5}, "`cursor_pos` must be an integer, not a number"),
        ("inspect_request", {"code": "ab", "cursor_pos": True}, "`cursor_pos` must be an integer, not a boolean"),
        ("is_complete_request", {"code": {}}, "`code` must be a string, not an object"),
        ("history_request", {"output": False, "raw": True}, "`hist_access_type` is missing"),
        (
            "history_request",
            {"hist_access_type": "tail", "output": 1, "raw": True},
            "`output` must be a boolean, not a number",
        ),
        ("history_request", "tail", "the content must be an object, not a string"),
        ("comm_info_request", [], "the content must be an object, not an array"),
        ("comm_info_request", {"target_name": 3}, "`target_name` must be a string, not a number"),
    ],
)
def test_a_missing_or_mistyped_field_is_named(msg_type: str, content: Any, problem: str) -> None:
    assert request_problem(msg_type, content, {}) == problem


@pytest.mark.parametrize(
    ("msg_type", "content"),
    [
        ("execute_request", {"code": "1", "silent": False, "user_expressions": {}, "stop_on_error": None}),
        ("complete_request", {"code": "ab", "cursor_pos": None}),
        ("history_request", {"hist_access_type": "tail", "output": False, "raw": True, "n": 10, "extra": 1}),
        ("comm_info_request", {}),
        ("inspect_request", {"code": "ab", "cursor_pos": 1000}),
        ("is_complete_request", {"code": "fun f() {"}),
        ("kernel_info_request", {}),
    ],
)
def test_a_valid_request_has_no_problem(msg_type: str, content: Any) -> None:
    assert request_problem(msg_type, content, {}) is None


def test_the_metadata_of_an_execute_request_must_be_an_object() -> None:
    assert (
        request_problem("execute_request", {"code": "1"}, None) == "the message's metadata must be an object, not null"
    )


def test_the_cursor_is_placed_inside_the_code() -> None:
    assert [cursor_in("abc", c) for c in (None, 0, 2, 3, 1000, -5)] == [3, 0, 2, 3, 3, 0]
