"""Every request gets a reply, whatever its content: lone surrogates, missing or mistyped fields, a huge value, a
cursor past the code; each on one kernel over the real protocol, which keeps its state and its process."""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Iterator
from typing import Any

import pytest

from kernel_client import Cell, collect, execute, running_kernel, warm_up

#: Only catches a request left without a reply.
REPLY_TIMEOUT = 60
NOTICE = (
    "[kotlin-llm] the code held 1 lone surrogate (half of a UTF-16 pair, which is not text), replaced by U+FFFD "
    "before it ran: line 1, column 10 (U+D800). In a string literal, write such a char as an escape, e.g. \\uD800.\n"
)


@pytest.fixture(scope="module")
def kernel_with_keep() -> Iterator[tuple[Any, Any]]:
    with running_kernel() as (km, kc):
        warm_up(kc)
        assert execute(kc, "val keep = 42").status == "ok"
        yield km, kc


@pytest.fixture
def kc(kernel_with_keep: tuple[Any, Any]) -> Iterator[Any]:
    """The kernel, checked after each test: `keep` is still 42 and the process is the one that declared it."""
    km, kc = kernel_with_keep
    process = km.provisioner.process
    pid = execute(kc, "ProcessHandle.current().pid()").result
    yield kc
    assert execute(kc, "keep").result == "42"
    assert execute(kc, "ProcessHandle.current().pid()").result == pid
    assert km.provisioner.process is process and km.is_alive()


def send(kc: Any, msg_type: str, content: Any) -> str:
    """Sends a request whose content is exactly ``content`` (any JSON, lone surrogates as escapes, as a client that
    writes ASCII JSON would); returns its msg_id."""
    msg = kc.session.msg(msg_type, {})
    msg["content"] = json.dumps(content, ensure_ascii=True).encode("ascii")  # sent as it is
    kc.shell_channel.send(msg)
    return str(msg["header"]["msg_id"])


def reply_to(kc: Any, msg_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + REPLY_TIMEOUT
    while True:
        try:
            reply = kc.get_shell_msg(timeout=max(deadline - time.monotonic(), 0.1))
        except queue.Empty:
            pytest.fail(f"no reply to {msg_id} within {REPLY_TIMEOUT} s")
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def invalid(msg_type: str, problem: str) -> dict[str, Any]:
    evalue = f"invalid {msg_type}: {problem}"
    return {"status": "error", "ename": "InvalidRequest", "evalue": evalue, "traceback": [f"InvalidRequest: {evalue}"]}


def test_a_value_with_a_lone_surrogate_is_shown_with_it_replaced(kc: Any) -> None:
    cell = execute(kc, '"a\\uD800b"')
    assert cell.status == "ok"
    assert cell.result == "a\ufffdb"
    printed = execute(kc, 'println("c\\uDC00d")\nSystem.err.println("\\uD800")')
    # printed text is encoded by the JVM's UTF-8 encoder, which writes "?" for a lone surrogate
    assert (printed.stdout, printed.stderr) == ("c?d\n", "?\n")
    thrown = execute(kc, 'error("e\\uD800")')
    assert (thrown.content["ename"], thrown.content["evalue"]) == ("java.lang.IllegalStateException", "e\ufffd")


def test_code_with_a_lone_surrogate_runs_with_it_replaced_and_a_notice(kc: Any) -> None:
    cell = collect(kc, send(kc, "execute_request", {"code": 'val s = "\ud800"\ns.length to s.first().code'}))
    assert cell.status == "ok"
    assert cell.result == "(1, 65533)"
    assert cell.stderr == NOTICE


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({}, "`code` is missing"),
        ({"code": 5}, "`code` must be a string, not a number"),
        ({"code": None}, "`code` must be a string, not null"),
        ({"code": "keep", "silent": "yes"}, "`silent` must be a boolean, not a string"),
        (["keep"], "the content must be an object, not an array"),
    ],
)
def test_an_execute_request_with_a_wrong_field_gets_an_error_naming_it(kc: Any, content: Any, problem: str) -> None:
    count = execute(kc, "keep").content["execution_count"]
    cell: Cell = collect(kc, send(kc, "execute_request", content), timeout=REPLY_TIMEOUT)
    expected = invalid("execute_request", problem)
    assert cell.content == {**expected, "execution_count": count}
    assert [m["content"] for m in cell.messages] == [{k: expected[k] for k in ("ename", "evalue", "traceback")}]
    assert execute(kc, "keep").content["execution_count"] == count + 1


@pytest.mark.parametrize(
    ("msg_type", "content", "problem"),
    [
        ("complete_request", {"cursor_pos": 0}, "`code` is missing"),
        ("complete_request", {"code": "kee"}, "`cursor_pos` is missing"),
        ("complete_request", {"code": "kee", "cursor_pos": "3"}, "`cursor_pos` must be an integer, not a string"),
        ("inspect_request", {"cursor_pos": 0}, "`code` is missing"),
        ("inspect_request", {"code": "keep"}, "`cursor_pos` is missing"),
        ("inspect_request", {"code": "keep", "cursor_pos": 1.5}, "`cursor_pos` must be an integer, not a number"),
        ("is_complete_request", {}, "`code` is missing"),
        ("is_complete_request", {"code": 1}, "`code` must be a string, not a number"),
        ("history_request", {"output": False, "raw": True}, "`hist_access_type` is missing"),
        ("comm_info_request", ["x"], "the content must be an object, not an array"),
    ],
)
def test_another_request_with_a_wrong_field_gets_an_error_naming_it(
    kc: Any, msg_type: str, content: Any, problem: str
) -> None:
    reply = reply_to(kc, send(kc, msg_type, content))
    assert reply["msg_type"] == msg_type.replace("_request", "_reply")
    assert reply["content"] == invalid(msg_type, problem)


def test_introspection_of_code_with_a_lone_surrogate_answers(kc: Any) -> None:
    code = '"\ud800" + kee'
    completion = reply_to(kc, send(kc, "complete_request", {"code": code, "cursor_pos": len(code)}))["content"]
    assert completion["status"] == "ok" and "keep" in completion["matches"]
    assert (completion["cursor_start"], completion["cursor_end"]) == (len(code) - 3, len(code))
    inspection = reply_to(kc, send(kc, "inspect_request", {"code": code + "p", "cursor_pos": len(code)}))["content"]
    assert inspection["status"] == "ok" and inspection["found"]
    assert inspection["data"]["text/plain"] == "val keep\n\nvalue: java.lang.Integer = 42"
    complete = reply_to(kc, send(kc, "is_complete_request", {"code": code + "p"}))["content"]
    assert complete == {"status": "complete"}


@pytest.mark.parametrize(("cursor_pos", "start", "end"), [(1000, 17, 18), (18, 17, 18), (-5, 0, 0), (None, 17, 18)])
def test_completion_offsets_stay_inside_the_code(kc: Any, cursor_pos: int | None, start: int, end: int) -> None:
    code = "val abc = keep + k"
    assert len(code) == 18
    reply = reply_to(kc, send(kc, "complete_request", {"code": code, "cursor_pos": cursor_pos}))["content"]
    assert reply["status"] == "ok"
    assert (reply["cursor_start"], reply["cursor_end"]) == (start, end)
    assert "keep" in reply["matches"]  # after "k", and at 0 with an empty prefix


def test_a_value_past_max_output_chars_is_cut_with_the_notice_of_printed_output(kc: Any) -> None:
    cell = execute(kc, 'print("p".repeat(5))\n"v".repeat(50_000_000)')
    assert cell.status == "ok"
    assert cell.stdout == "ppppp"
    assert cell.result == "v" * (20_000_000 - 5)
    assert cell.stderr == (
        "\n[kotlin-llm] output cut: the last 30,000,005 characters (0 lines) of this cell were not shown, past the "
        "limit of 20,000,000 characters (KotlinKernel.max_output_chars).\n"
    )


def test_a_history_request_with_an_extra_field_gets_its_reply(kc: Any) -> None:
    content = {"hist_access_type": "tail", "output": False, "raw": True, "n": 5, "from_a_newer_client": True}
    reply = reply_to(kc, send(kc, "history_request", content))
    assert reply["msg_type"] == "history_reply"
    assert reply["content"]["status"] == "ok"
