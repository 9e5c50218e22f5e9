"""Reading input: input_request/input_reply over the real protocol, the stdin-not-allowed error (also under nbclient),
interrupts while a cell waits for input, and the Python API's stdin callable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kotlin_llm_kernel import Error, ScriptSession, SessionOptions, Value
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from kernel_client import CELL_TIMEOUT, Cell, collect, execute

NOT_ALLOWED = "org.kotlinllm.script.runtime.StdinNotAllowedException"
NOT_ALLOWED_TEXT = "this cell cannot read input: the client did not allow stdin (allow_stdin=false"
#: Only catches a hang: a read that is not allowed fails as soon as it runs, an interrupted one within a second.
HANG_GUARD = 60


def answered(kc: Any, code: str, *answers: str) -> tuple[Cell, list[dict[str, Any]]]:
    """Runs ``code`` with stdin allowed, answering its input requests in order; the cell and the requests."""
    msg_id = kc.execute(code, allow_stdin=True)
    requests = []
    for answer in answers:
        request = kc.get_stdin_msg(timeout=CELL_TIMEOUT)
        assert request["msg_type"] == "input_request"
        assert request["parent_header"]["msg_id"] == msg_id, "routed to the cell's own request"
        requests.append(request)
        kc.input(answer)
    return collect(kc, msg_id), requests


def test_readline_is_answered_through_input_request(kernel: tuple[Any, Any]) -> None:
    _, kc = kernel
    cell, [request] = answered(kc, 'print("Name: ")\nval name = readLine()\n"Hello $name"', "Ada Lovelace")
    assert request["content"] == {"prompt": "", "password": False}
    assert cell.status == "ok", cell.content
    assert cell.stdout == "Name: "
    assert cell.result == "Hello Ada Lovelace"


def test_two_reads_and_a_password(kernel: tuple[Any, Any]) -> None:
    _, kc = kernel
    code = 'val user = readln()\nval secret = readPassword("Token: ")\n"$user ${secret.length}"'
    cell, requests = answered(kc, code, "ada", "s3cret")
    assert [r["content"] for r in requests] == [
        {"prompt": "", "password": False},
        {"prompt": "Token: ", "password": True},
    ]
    assert cell.result == "ada 6"
    scanner, _ = answered(kc, "val scanner = java.util.Scanner(System.`in`)\nscanner.nextInt() * 2", "21")
    assert scanner.result == "42"


def test_ctrl_d_is_the_end_of_input(kernel: tuple[Any, Any]) -> None:
    _, kc = kernel
    cell, _ = answered(kc, "readLine()", "\x04")
    assert cell.result == "null"
    eof, _ = answered(kc, "readln()", "\x04")
    assert eof.status == "error" and eof.content["ename"] == "kotlin.io.ReadAfterEOFException"


def test_not_allowed_fails_at_once_with_a_located_error(kernel: tuple[Any, Any]) -> None:
    _, kc = kernel
    cell = collect(kc, kc.execute('val x = 1\nprintln("asking")\nval name = readLine()', allow_stdin=False), HANG_GUARD)
    assert cell.status == "error"
    assert cell.content["ename"] == NOT_ALLOWED
    assert cell.content["evalue"].startswith(NOT_ALLOWED_TEXT)
    snippet = f"snippet{cell.content['execution_count']}.kts"
    assert cell.content["traceback"][:3] == [
        f"{NOT_ALLOWED}: {cell.content['evalue']}",
        f"  at <snippet body>({snippet}:3)",
        "  | val name = readLine()",
    ]
    assert cell.error == {k: cell.content[k] for k in ("ename", "evalue", "traceback")}
    assert cell.stdout == "asking\n"
    assert not kc.stdin_channel.msg_ready(), "no input_request was sent"
    scanner = collect(kc, kc.execute("java.util.Scanner(System.`in`).nextLine()", allow_stdin=False), HANG_GUARD)
    assert scanner.content["ename"] == NOT_ALLOWED, "not Scanner's 'No line found'"


def test_interrupt_while_waiting_for_input(mode_kernel: tuple[Any, Any]) -> None:
    km, kc = mode_kernel
    msg_id = kc.execute('println("started")\nval lost = readLine()', allow_stdin=True)
    request = kc.get_stdin_msg(timeout=CELL_TIMEOUT)
    assert request["parent_header"]["msg_id"] == msg_id
    km.interrupt_kernel()
    cell = collect(kc, msg_id, timeout=HANG_GUARD)
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == "java.lang.InterruptedException"
    assert cell.kotlin_llm["interrupted"] is True
    kc.input("too late")  # a reply to the withdrawn request: dropped, never the next read's answer
    assert execute(kc, "before").result == "7", "the session keeps its state"
    again, _ = answered(kc, 'readLine() + " " + before', "fresh")
    assert again.result == "fresh 7"
    assert km.is_alive()


def test_nbclient_gets_the_error_not_a_hang() -> None:
    nb = new_notebook(cells=[new_code_cell('val name = readLine()\n"Hello $name"'), new_code_cell('"after"')])
    NotebookClient(nb, kernel_name="kotlin-llm", allow_errors=True, timeout=300, startup_timeout=180).execute()
    [error] = [o for o in nb.cells[0].outputs if o.output_type == "error"]
    assert error.ename == NOT_ALLOWED
    assert error.evalue.startswith(NOT_ALLOWED_TEXT)
    assert "  at <snippet body>(snippet1.kts:1)" in error.traceback
    assert nb.cells[1].outputs[0].data["text/plain"] == "after"


# --- the Python API ---


@pytest.fixture(scope="module")
def answers() -> list[tuple[str, bool]]:
    return []


@pytest.fixture(scope="module")
def session(answers: list[tuple[str, bool]]) -> Iterator[ScriptSession]:
    def stdin(prompt: str, password: bool) -> str | None:
        answers.append((prompt, password))
        if prompt == "fail: ":
            raise RuntimeError("the caller cannot answer")
        return None if prompt == "eof: " else f"line {len(answers)}"

    with ScriptSession(options=SessionOptions(stdin=stdin, echo=False)) as s:
        yield s


def test_api_stdin_answers_reads(session: ScriptSession, answers: list[tuple[str, bool]]) -> None:
    answers.clear()
    result = session.execute('print("Name: ")\nlistOf(readLine(), readln(), readPassword("Token: "))')
    assert isinstance(result, Value), result
    assert result.text == "[line 1, line 2, line 3]"
    assert result.stdout == "Name: "
    assert answers == [("", False), ("", False), ("Token: ", True)]
    assert session.execute('readPassword("eof: ")').ename == "java.io.EOFException"


def test_api_stdin_callable_failing_cancels_the_snippet(session: ScriptSession) -> None:
    session.execute("val kept = 5")
    with pytest.raises(RuntimeError, match="the caller cannot answer"):
        session.execute('readPassword("fail: ")')
    assert session.execute("kept").value == 5


def test_api_without_stdin_reads_fail_at_once() -> None:
    with ScriptSession(options=SessionOptions(echo=False)) as plain:
        number = plain.last_snippet_number + 1
        error = plain.execute("val x = readLine()")
        assert isinstance(error, Error)
        assert error.ename == NOT_ALLOWED and error.evalue.startswith(NOT_ALLOWED_TEXT)
        assert f"  at <snippet body>(snippet{number}.kts:1)" in error.traceback
