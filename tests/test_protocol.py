"""Outputs of one shared kernel over the real protocol (jupyter_client): values, errors, streams, introspection."""

from __future__ import annotations

import json
import os
import queue
import re
import time
from pathlib import Path
from typing import Any

import pytest

from kernel_client import Cell, collect, execute, read_until, request, running_kernel

POM = Path(__file__).resolve().parent.parent / "jvm" / "pom.xml"

pytestmark = pytest.mark.usefixtures("kernel")


@pytest.fixture(scope="module")
def kc(kernel: tuple[Any, Any]) -> Any:
    return kernel[1]


def snippet(cell: Cell) -> str:
    return f"snippet{cell.content['execution_count']}.kts"


def test_kernel_info(kc: Any) -> None:
    content = request(kc, "kernel_info_request")["content"]
    assert content["implementation"] == "kotlin-llm"
    assert content["language_info"]["name"] == "kotlin"
    assert content["language_info"]["file_extension"] == ".kts"
    assert content["language_info"]["pygments_lexer"] == "kotlin"
    # the compiler the engine was built with, as jvm/pom.xml pins it, is the one the banner names
    pinned = re.search(r"<kotlin.version>([^<]+)</kotlin.version>", POM.read_text(encoding="utf-8"))
    assert pinned is not None
    assert content["language_info"]["version"] == pinned.group(1)
    assert f"Kotlin {pinned.group(1)} scripts" in content["banner"]
    assert content["supported_features"] == []


def test_value_state_and_snippet_number(kc: Any) -> None:
    declared = execute(kc, "val answer = 41")
    assert declared.status == "ok" and declared.result is None and declared.messages == []
    cell = execute(kc, "answer + 1")
    assert cell.status == "ok"
    assert cell.result == "42"
    [result] = cell.outputs("execute_result")
    assert result["content"]["execution_count"] == cell.content["execution_count"]
    assert cell.kotlin_llm["snippet"] == snippet(cell)


def test_null_shows_null_and_unit_shows_nothing(kc: Any) -> None:
    assert execute(kc, "null").result == "null"
    unit = execute(kc, "Unit")
    assert unit.status == "ok" and unit.outputs("execute_result") == []


def test_empty_cell_is_not_a_snippet(kc: Any) -> None:
    empty = execute(kc, "  \n\n")
    assert empty.status == "ok" and empty.messages == []
    after = execute(kc, 'error("where am I")')
    assert f"{snippet(after)}:1" in "\n".join(after.content["traceback"])


def test_compilation_error(kc: Any) -> None:
    cell = execute(kc, "asdf\nprintln(foo)")
    name = snippet(cell)
    expected = (
        f"{name}:1:1: error: Unresolved reference 'asdf'.\n  | <error>asdf</error>\n\n"
        f"{name}:2:9: error: Unresolved reference 'foo'.\n  | println(<error>foo</error>)"
    )
    assert cell.status == "error"
    assert cell.content["ename"] == "CompilationError"
    assert cell.content["evalue"] == f"{name}:1:1: error: Unresolved reference 'asdf'."
    assert "\n".join(cell.content["traceback"]) == expected
    assert cell.outputs("error")[0]["content"] == {k: cell.content[k] for k in ("ename", "evalue", "traceback")}
    assert len(cell.messages) == 1
    assert cell.kotlin_llm["phase"] == "COMPILATION"


def test_runtime_error_keeps_declarations(kc: Any) -> None:
    declared = execute(kc, 'fun check(value: Int) {\n    require(value > 0) { "value must be positive" }\n}')
    cell = execute(kc, "val kept = 5\nlistOf(3, -1).forEach { check(it) }")
    traceback = "\n".join(cell.content["traceback"])
    assert cell.content["ename"] == "java.lang.IllegalArgumentException"
    assert cell.content["evalue"] == "value must be positive"
    assert cell.content["traceback"][0] == "java.lang.IllegalArgumentException: value must be positive"
    assert f"at check({snippet(declared)}:2)" in traceback
    assert f"({snippet(cell)}:2)" in traceback
    assert "\x1b" not in traceback
    assert cell.kotlin_llm["phase"] == "EVALUATION"
    assert execute(kc, "kept").result == "5"


def test_stdout_and_stderr(kc: Any) -> None:
    cell = execute(kc, 'println("to stdout")\nSystem.err.println("to stderr")\nprint("no newline")')
    assert cell.stdout == "to stdout\nno newline"
    assert cell.stderr == "to stderr\n"


def test_output_of_child_processes_reaches_the_cell() -> None:
    """Output written to the process's file descriptors (here by a child process) goes to the cell that ran it.

    ipykernel captures the descriptors only outside pytest, so this kernel starts without pytest's variable.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    with running_kernel(env=env) as (_km, own):
        cell = execute(own, 'ProcessBuilder("echo", "from a child process").inheritIO().start().waitFor()')
        assert cell.result == "0"
        text = cell.stdout
        deadline = time.monotonic() + 10
        while "from a child process" not in text and time.monotonic() < deadline:  # a late flush is still the cell's
            try:
                msg = own.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            if (
                msg["msg_type"] == "stream"
                and msg["parent_header"].get("msg_id") == cell.reply["parent_header"]["msg_id"]
            ):
                text += msg["content"]["text"]
        assert text == "from a child process\n"


def wait_for_file(path: Path) -> str:
    """Kotlin that waits (at most a minute, so a failed test cannot block the shared kernel) until ``path`` exists."""
    return (
        f'val gate = java.io.File("""{path}""")\n'
        "val gateDeadline = System.nanoTime() + 60_000_000_000L\n"
        "while (!gate.exists() && System.nanoTime() < gateDeadline) Thread.sleep(10)\n"
    )


def test_output_streams_while_the_cell_runs(kc: Any, tmp_path: Path) -> None:
    gate = tmp_path / "go-on"
    msg_id = kc.execute(f'println("tick 1")\n{wait_for_file(gate)}println("tick 2")')
    seen = read_until(kc, msg_id, "tick 1")  # sent while the cell waits for the file this test has not made yet
    assert "tick 2" not in "".join(m["content"].get("text", "") for m in seen)
    gate.touch()
    cell = collect(kc, msg_id, seen=seen)
    assert cell.status == "ok", cell.content
    assert cell.stdout == "tick 1\ntick 2\n"
    assert len(cell.outputs("stream")) >= 2


def test_output_of_await_and_launch(kc: Any) -> None:
    cell = execute(
        kc,
        'await { println("from await") }\n'
        'val job = launch { delay(100); println("from launch") }\n'
        "await { job.join() }\n"
        '"done"',
    )
    assert cell.status == "ok"
    assert cell.stdout == "from await\nfrom launch\n"
    assert cell.result == "done"


def test_output_printed_between_cells_goes_under_the_cell_that_launched_it(kc: Any, tmp_path: Path) -> None:
    gate = tmp_path / "print-now"
    code = (
        f'launch {{\n    while (!java.io.File("""{gate}""").exists()) delay(10)\n    println("late line")\n}}\n'
        '"launched"'
    )
    first = execute(kc, code)
    assert first.result == "launched"
    assert first.stdout == ""
    launched_by = first.reply["parent_header"]["msg_id"]
    gate.touch()  # the launched coroutine prints only now, after its cell has ended
    text = ""
    deadline = time.monotonic() + 30
    while "late line" not in text and time.monotonic() < deadline:
        try:
            msg = kc.get_iopub_msg(timeout=1)
        except queue.Empty:
            continue
        if msg["msg_type"] == "stream":
            assert msg["parent_header"]["msg_id"] == launched_by
            text += msg["content"]["text"]
    assert text == "late line\n"
    assert execute(kc, "1 + 1").stdout == ""


def test_hundred_thousand_lines(kc: Any) -> None:
    cell = execute(kc, 'for (i in 1..100000) println("line $i")', timeout=300)
    assert cell.status == "ok"
    lines = cell.stdout.splitlines()
    assert len(lines) == 100_000
    assert lines[0] == "line 1" and lines[-1] == "line 100000"
    assert len(cell.outputs("stream")) < 2000, "output must be coalesced into few messages"


def test_warnings_on_stderr_and_in_metadata(kc: Any) -> None:
    cell = execute(kc, '@Deprecated("use another")\nfun oldOne() = 1\noldOne()')
    assert cell.status == "ok" and cell.result == "1"
    assert f"{snippet(cell)}:3:1: warning:" in cell.stderr
    assert cell.kotlin_llm["warnings"] and "warning:" in cell.kotlin_llm["warnings"][0]
    assert cell.kotlin_llm["resolved_versions"] == {}


def test_complete_declared_names_and_keywords(kc: Any) -> None:
    execute(kc, 'val greetingText = "hi"')
    reply = request(kc, "complete_request", code="greetingT", cursor_pos=9)["content"]
    assert reply["status"] == "ok"
    assert "greetingText" in reply["matches"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (0, 9)
    keywords = request(kc, "complete_request", code="whil", cursor_pos=4)["content"]
    assert "while" in keywords["matches"]


def test_complete_members(kc: Any) -> None:
    code = 'val memberProbe = "abc"\nmemberProbe.len'
    execute(kc, 'val memberProbe = "abc"')
    reply = request(kc, "complete_request", code=code, cursor_pos=len(code))["content"]
    assert reply["metadata"]["kotlin_llm"]["source"] == "types", reply["metadata"]
    assert "length" in reply["matches"]
    length = next(item for item in reply["metadata"]["_jupyter_types_experimental"] if item["text"] == "length")
    start = len(code) - 3
    expected = {"start": start, "end": start + 3, "text": "length", "type": "property", "signature": "val length: Int"}
    assert length == expected
    assert reply["cursor_start"] == len(code) - 3


def test_inspect(kc: Any) -> None:
    declared = execute(kc, "fun inspectedFunction(x: Int): String = x.toString()")
    code = "inspectedFunction(1)"
    reply = request(kc, "inspect_request", code=code, cursor_pos=3, detail_level=0)["content"]
    assert reply["status"] == "ok" and reply["found"]
    text = reply["data"]["text/plain"]
    assert text == f"fun inspectedFunction(x: Int): String\n\ndeclared in {snippet(declared)}", text
    inside = request(kc, "inspect_request", code="println()", cursor_pos=8, detail_level=0)["content"]
    assert inside["data"]["text/plain"] == (
        "inline fun println()\n\nin kotlin.io\n\nPrints the line separator to the standard output stream."
    )
    missing = request(kc, "inspect_request", code="  ", cursor_pos=1, detail_level=0)["content"]
    assert missing["status"] == "ok" and not missing["found"]


def test_inspect_lists_every_overload_of_an_unfinished_call(kc: Any) -> None:
    """Shift+Tab in `println(`: all 11 overloads, `println()` among them though the call has an argument so far."""
    reply = request(kc, "inspect_request", code="println(", cursor_pos=8, detail_level=0)["content"]
    assert reply["status"] == "ok" and reply["found"]
    types = ["Any?", "Int", "Long", "Byte", "Short", "Char", "Boolean", "Float", "Double", "CharArray"]
    listed = "\n".join(f"inline fun println(message: {t})" for t in types) + "\ninline fun println()"
    assert reply["data"]["text/plain"] == (
        f"{listed}\n\nin kotlin.io\n\nPrints the given [message] and the line separator to the standard output stream."
    )
    # past 16 overloads, how many more there are
    many = request(kc, "inspect_request", code="maxOf(", cursor_pos=6, detail_level=0)["content"]["data"]["text/plain"]
    signatures, rest = many.split("\n\n", 1)
    assert signatures.splitlines()[-1] == "… and 20 more overloads" and len(signatures.splitlines()) == 17
    assert rest.startswith("in kotlin.comparisons\n\n")


def test_a_cell_enum_wins_over_the_default_imported_values_of_its_name(kc: Any) -> None:
    """kotlin.math.E and PI are values that K2 would prefer to a class named alike: the cell's enum wins in its cell and
    later ones, and an error's column is still the user's though the cell is compiled with an import added."""
    declared = execute(kc, 'enum class E { A, B }\nenum class PI { C }\n"${E.B} ${PI.C}"')
    assert declared.status == "ok", declared.content
    assert declared.result == "B C"
    assert execute(kc, '"${E.A.ordinal} ${PI.C} ${kotlin.math.E}"').result == "0 C 2.718281828459045"
    wrong = execute(kc, "val n: Int = E.B\nE.C")
    name = snippet(wrong)
    assert "\n".join(wrong.content["traceback"]) == (
        f"{name}:1:12: error: Initializer type mismatch: expected 'Int', actual 'E'.\n"
        "  | val n: Int <error>=</error> E.B\n\n"
        f"{name}:2:3: error: Unresolved reference 'C'.\n  | E.<error>C</error>"
    )


def test_is_complete(kc: Any) -> None:
    assert request(kc, "is_complete_request", code="fun f() {")["content"] == {"status": "incomplete", "indent": "    "}
    assert request(kc, "is_complete_request", code="1 + 1")["content"]["status"] == "complete"
    assert request(kc, "is_complete_request", code="1 + 1)")["content"]["status"] == "invalid"


def control_request(kc: Any, msg_type: str, **content: Any) -> dict[str, Any]:
    """Sends a shell request on the control channel, which accepts them too, and returns its reply there. The content
    goes as ASCII JSON, as a client that escapes non-ASCII writes it (so it may hold a lone surrogate)."""
    msg = kc.session.msg(msg_type, {})
    msg["content"] = json.dumps(content, ensure_ascii=True).encode("ascii")  # sent as it is
    kc.control_channel.send(msg)
    while True:
        reply = kc.get_control_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return reply


def test_requests_on_the_control_channel_are_checked_as_on_the_shell(kc: Any) -> None:
    wrong = control_request(kc, "is_complete_request", code=1)
    evalue = "invalid is_complete_request: `code` must be a string, not a number"
    assert wrong["msg_type"] == "is_complete_reply"
    assert wrong["content"] == {
        "status": "error",
        "ename": "InvalidRequest",
        "evalue": evalue,
        "traceback": [f"InvalidRequest: {evalue}"],
    }
    # the check lets a right one through to its handler, and cleans its code as on the shell
    assert control_request(kc, "is_complete_request", code="fun f() {")["content"]["status"] == "incomplete"
    cleaned = control_request(kc, "complete_request", code='"\ud800".leng', cursor_pos=12)["content"]
    assert cleaned["status"] == "ok" and "length" in cleaned["matches"], cleaned
