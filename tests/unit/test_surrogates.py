"""Lone surrogates replaced and located (kotlin_llm_kernel.session.surrogates) and packed in a message
(kotlin_llm_kernel.jupyter.packing), without a kernel."""

from __future__ import annotations

import json

from jupyter_client.session import json_packer
from kotlin_llm_kernel.jupyter.packing import packing_lone_surrogates
from kotlin_llm_kernel.session.surrogates import lone_surrogates, replace_lone_surrogates, surrogate_notice


def test_lone_surrogates_are_replaced_and_the_length_kept() -> None:
    assert replace_lone_surrogates("a\ud800b\udfff") == "a\ufffdb\ufffd"
    assert replace_lone_surrogates("pair \U0001f600, none") == "pair \U0001f600, none"
    assert replace_lone_surrogates("") == ""


def test_lone_surrogates_are_located_by_line_and_column() -> None:
    assert lone_surrogates('val s = "\ud800"\n\udc00x') == [(1, 10, "U+D800"), (2, 1, "U+DC00")]
    assert lone_surrogates("plain \U0001f600") == []


def test_the_notice_names_each_place_up_to_five() -> None:
    assert surrogate_notice("no surrogate") is None
    assert surrogate_notice('"\ud800"') == (
        "[kotlin-llm] the code held 1 lone surrogate (half of a UTF-16 pair, which is not text), replaced by U+FFFD "
        "before it ran: line 1, column 2 (U+D800). In a string literal, write such a char as an escape, e.g. \\uD800.\n"
    )
    notice = surrogate_notice("\ud800" * 7)
    assert notice is not None
    assert "7 lone surrogates" in notice
    assert "line 1, column 5 (U+D800) and 2 more." in notice


def test_a_message_with_a_lone_surrogate_is_packed_as_escaped_json_and_others_as_before() -> None:
    pack = packing_lone_surrogates(json_packer)
    assert pack({"msg_id": "a\ud800b", "text": "é"}) == b'{"msg_id": "a\\ud800b", "text": "\\u00e9"}'
    assert json.loads(pack({"msg_id": "a\ud800b"})) == {"msg_id": "a\ud800b"}
    assert pack({"text": "é"}) == json_packer({"text": "é"})
