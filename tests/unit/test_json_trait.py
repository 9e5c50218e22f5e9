"""The JsonDict trait (kotlin_llm_kernel.config.json_trait): a JSON object or name=value items, as on the command
line."""

from __future__ import annotations

from typing import Any

import pytest
from kotlin_llm_kernel.config.json_trait import JsonDict, parse_json_or_text
from traitlets import HasTraits, TraitError


class Holder(HasTraits):
    properties = JsonDict()


def parsed(*items: str) -> Any:
    return Holder.class_traits()["properties"].from_string_list(list(items))


def test_a_json_object() -> None:
    assert parsed('{"answer": 42, "names": ["a", "b"], "config": {"k": null}}') == {
        "answer": 42,
        "names": ["a", "b"],
        "config": {"k": None},
    }
    assert parsed('  {"spaced": true}') == {"spaced": True}


def test_name_value_items_take_json_values_or_text() -> None:
    assert parsed("answer=42", "ratio=0.5", "flag=true", "greeting=Hello", 'quoted="42"', "empty=") == {
        "answer": 42,
        "ratio": 0.5,
        "flag": True,
        "greeting": "Hello",
        "quoted": "42",
        "empty": "",
    }


def test_an_item_splits_at_its_first_equals_sign_and_trims_the_name() -> None:
    assert parsed(" url =a=b") == {"url": "a=b"}


def test_a_later_item_wins() -> None:
    assert parsed("x=1", "x=2") == {"x": 2}


def test_a_single_string_is_read_as_a_list_of_one() -> None:
    assert Holder.class_traits()["properties"].from_string("answer=42") == {"answer": 42}


def test_an_item_without_equals_sign_is_refused_with_the_setting_named() -> None:
    with pytest.raises(TraitError, match=r"properties items must look like name=value, got 'answer'"):
        parsed("answer")


def test_json_that_is_not_an_object_is_refused() -> None:
    # starts with "{" only when it means to be an object; a list is not an item either
    with pytest.raises(TraitError, match="name=value"):
        parsed("[1, 2]")


def test_malformed_json_object_is_an_error() -> None:
    with pytest.raises(ValueError):
        parsed('{"answer": }')


@pytest.mark.parametrize(
    ("text", "value"),
    [("42", 42), ("-1.5", -1.5), ("null", None), ('"x"', "x"), ("[1]", [1]), ("Hello", "Hello"), ("", "")],
)
def test_parse_json_or_text(text: str, value: Any) -> None:
    assert parse_json_or_text(text) == value
