"""The first request of a fresh kernel, sent as soon as its kernel_info reply arrived (as agents do), over the real
protocol: a completion or an inspection asked while the compiler still starts waits for it and answers by type, and
its reply's metadata says that it waited."""

from __future__ import annotations

from typing import Any

from kernel_client import CELL_TIMEOUT, execute, request, running_kernel

COMPLETED = '"abc".'
INSPECTED = '"abc".length'


def _waited(metadata: dict[str, Any]) -> None:
    how = metadata["kotlin_llm"]
    assert how["source"] == "types", metadata
    assert "reason" not in how, metadata
    # the request came before the compiler was up: it waited for its start (a later one has no such field)
    assert isinstance(how.get("waited_for_compiler_ms"), int) and how["waited_for_compiler_ms"] > 0, metadata


def test_a_completion_right_after_kernel_info_waits_for_the_compiler() -> None:
    with running_kernel() as (_, kc):  # returns once the kernel_info reply arrived
        reply = request(kc, "complete_request", timeout=CELL_TIMEOUT, code=COMPLETED, cursor_pos=len(COMPLETED))
        content = reply["content"]
        assert content["status"] == "ok", content
        assert {"length", "uppercase", "substring"} <= set(content["matches"]), content["matches"][:20]
        assert (content["cursor_start"], content["cursor_end"]) == (len(COMPLETED), len(COMPLETED))
        _waited(content["metadata"])
        # the next one asks a started compiler, and cells still run as before
        later = request(kc, "complete_request", code="listOf(1).ma", cursor_pos=12)["content"]
        assert later["matches"][:2] == ["map", "mapIndexed"], later["matches"]
        assert later["metadata"]["kotlin_llm"] == {"source": "types"}, later["metadata"]
        cell = execute(kc, "1 + 1")
        assert cell.status == "ok" and cell.result == "2", cell.content


def test_an_inspection_right_after_kernel_info_waits_for_the_compiler() -> None:
    with running_kernel() as (_, kc):
        reply = request(kc, "inspect_request", timeout=CELL_TIMEOUT, code=INSPECTED, cursor_pos=8, detail_level=0)
        content = reply["content"]
        assert content["status"] == "ok" and content["found"], content
        assert content["data"]["text/plain"].startswith("val length: Int"), content["data"]
        _waited(content["metadata"])
