"""The faults of issue 12 over the real protocol, each on a kernel of JDK 17 and one of JDK 25 (``fault_kernel``):
every request gets a reply, whatever its content (lone surrogates, missing or mistyped fields, a huge value, a
cursor past the code); no cell can end the kernel (System.exit, Runtime.halt, exitProcess, also by reflection);
errors of threads a cell started are rendered like its own. After each, the kernel keeps `keep` and its process.
Library code that ends the process anyway is told to the client first, on a kernel of its own."""

from __future__ import annotations

import json
import queue
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.jsonutil import json_default
from jupyter_client.manager import start_new_kernel

from conftest import FAULT_JDKS
from kernel_client import KERNEL, STARTUP_TIMEOUT, Cell, collect, execute, jdk_arguments

#: Only catches a request left without a reply.
REPLY_TIMEOUT = 60
NOTICE = (
    "[kotlin-llm] the code held 1 lone surrogate (half of a UTF-16 pair, which is not text), replaced by U+FFFD "
    "before it ran: line 1, column 10 (U+D800). In a string literal, write such a char as an escape, e.g. \\uD800.\n"
)
REFUSED = "org.kotlinllm.script.runtime.ExitRefusedException"
WHY = "a snippet cannot end the kernel; to end the session, restart the kernel"


def pid_of(kc: Any) -> str | None:
    """The process id the kernel's JVM runs in, as a cell sees it."""
    return execute(kc, "ProcessHandle.current().pid()", timeout=REPLY_TIMEOUT).result


@pytest.fixture
def kc(fault_kernel: tuple[Any, Any]) -> Iterator[Any]:
    """The kernel, checked after each test: `keep` is still 42 and the process is the one that declared it."""
    km, kc = fault_kernel
    process = km.provisioner.process
    pid = pid_of(kc)
    assert pid == str(km.provisioner.pid), "the cells run in the process the kernel manager started"
    yield kc
    assert execute(kc, "keep", timeout=REPLY_TIMEOUT).result == "42"
    assert pid_of(kc) == pid
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
    cell = execute(kc, '"a\\uD800b"', timeout=REPLY_TIMEOUT)
    assert cell.status == "ok"
    assert cell.result == "a\ufffdb"
    printed = execute(kc, 'println("c\\uDC00d")\nSystem.err.println("\\uD800")')
    # printed text is encoded by the JVM's UTF-8 encoder, which writes "?" for a lone surrogate
    assert (printed.stdout, printed.stderr) == ("c?d\n", "?\n")
    thrown = execute(kc, 'error("e\\uD800")')
    assert (thrown.content["ename"], thrown.content["evalue"]) == ("java.lang.IllegalStateException", "e\ufffd")


def test_code_with_a_lone_surrogate_runs_with_it_replaced_and_a_notice(kc: Any) -> None:
    code = 'val s = "\ud800"\ns.length to s.first().code'
    cell = collect(kc, send(kc, "execute_request", {"code": code}), timeout=REPLY_TIMEOUT)
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
    text = inspection["data"]["text/plain"]
    assert re.fullmatch(r"val keep: Int\n\ndeclared in snippet\d+\.kts\n\nvalue: java\.lang\.Integer = 42", text), text
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
    cell = execute(kc, 'print("p".repeat(5))\n"v".repeat(50_000_000)', timeout=REPLY_TIMEOUT)
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


def test_a_request_with_a_lone_surrogate_in_its_header_gets_its_reply(kc: Any) -> None:
    """The reply and the outputs repeat the request's header as their parent header, which the kernel sends as
    escaped JSON then: the client reads back the msg_id it sent."""
    pack = kc.session.pack
    kc.session.pack = lambda message: json.dumps(message, default=json_default, ensure_ascii=True).encode("ascii")
    try:
        msg = kc.session.msg("execute_request", {"code": "keep + 1", "silent": False, "store_history": True})
        msg["header"]["msg_id"] = msg_id = "a\ud800b"
        kc.shell_channel.send(msg)
    finally:
        kc.session.pack = pack
    cell = collect(kc, msg_id, timeout=REPLY_TIMEOUT)
    assert cell.reply["parent_header"]["msg_id"] == msg_id
    assert cell.status == "ok"
    assert cell.result == "43"


# --- no cell can end the kernel ---

INT = "Int::class.javaPrimitiveType"


@pytest.mark.parametrize(
    ("code", "call"),
    [
        ("System.exit(0)", "System.exit(0)"),
        ("System.exit(3)", "System.exit(3)"),
        ("Runtime.getRuntime().halt(1)", "Runtime.halt(1)"),
        ("kotlin.system.exitProcess(2)", "System.exit(2)"),
        (f'System::class.java.getMethod("exit", {INT}).invoke(null, 4)', "System.exit(4)"),
        (
            f'java.lang.invoke.MethodHandles.lookup().findVirtual(Runtime::class.java, "halt", '
            f"java.lang.invoke.MethodType.methodType(Void.TYPE, {INT}))",
            "a method handle of Runtime.halt(int)",
        ),
    ],
    ids=["System.exit(0)", "System.exit(3)", "Runtime.halt", "exitProcess", "Method.invoke", "findVirtual"],
)
def test_a_cell_cannot_end_the_kernel(kc: Any, code: str, call: str) -> None:
    cell = execute(kc, f'println("before")\n{code}', timeout=REPLY_TIMEOUT)
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == REFUSED
    assert cell.content["evalue"] == f"{call} was refused: {WHY}"
    name = f"snippet{cell.content['execution_count']}.kts"
    assert cell.content["traceback"] == [
        f"{REFUSED}: {call} was refused: {WHY}",
        f"  at <snippet body>({name}:2)",
        f"  | {code}",
    ]
    assert cell.stdout == "before\n"


# --- errors of threads a cell started ---


def test_an_uncaught_exception_of_a_thread_is_rendered_under_its_cell(kc: Any) -> None:
    code = 'kotlin.concurrent.thread(name = "worker") {\n    error("boom")\n}.join()'
    cell = execute(kc, code, timeout=REPLY_TIMEOUT)
    assert cell.status == "ok"
    assert cell.stderr == (
        'Exception in thread "worker": java.lang.IllegalStateException: boom\n'
        f"  at <snippet body>(snippet{cell.content['execution_count']}.kts:2)\n"
        '  |     error("boom")\n'
    )


# --- library code ending the process: told to the client first ---

#: javac's entry point ends the process with its status (2: a bad flag); JDK code that the engine does not rewrite.
LIBRARY_EXIT = 'com.sun.tools.javac.Main.main(arrayOf("-bogus"))'


@pytest.mark.parametrize("jdk", FAULT_JDKS)
def test_an_exit_by_library_code_gets_an_error_reply_before_the_process_ends(jdk: str, tmp_path: Path) -> None:
    """The cell that was running gets its error output, its reply and the idle status; then the process ends with
    the library's status, and the kernel's log (its stderr) has the same report. The status is known from JDK 21."""
    log = tmp_path / "kernel.log"
    with log.open("w") as stderr:
        km, kc = start_new_kernel(
            kernel_name=KERNEL, startup_timeout=STARTUP_TIMEOUT, stderr=stderr, extra_arguments=jdk_arguments(jdk)
        )
    try:
        assert execute(kc, "val keep = 42").status == "ok"
        started = time.monotonic()
        cell = execute(kc, f'println("before")\n{LIBRARY_EXIT}', timeout=REPLY_TIMEOUT)
        assert km.provisioner.process.wait(timeout=REPLY_TIMEOUT) == 2
        assert time.monotonic() - started < REPLY_TIMEOUT
    finally:
        kc.stop_channels()
        if km.is_alive():
            km.shutdown_kernel(now=True)
        else:
            km.cleanup_resources()  # its control socket and connection file
    call = "System.exit" if jdk == "default" else "System.exit(2)"  # the default JDK is 17
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == "KernelExit"
    evalue = cell.content["evalue"]
    assert re.fullmatch(
        re.escape(f"{call} was called by library code at com.sun.tools.javac.Main.main(Main.java:")
        + r"\d+"
        + re.escape(
            "), which the kernel cannot refuse: the kernel process ends now and the client restarts it; the "
            "session's state is lost"
        ),
        evalue,
    ), evalue
    frame = evalue.split(" at ", 1)[1].split(", which", 1)[0]
    traceback = [f"KernelExit: {evalue}", f"  at {frame}", "  at <snippet body>(snippet2.kts:2)", f"  | {LIBRARY_EXIT}"]
    assert cell.content["traceback"] == traceback
    assert cell.error == {"ename": "KernelExit", "evalue": evalue, "traceback": traceback}
    assert cell.stdout == "before\n"
    assert cell.stderr.startswith("error: invalid flag: -bogus\n"), cell.stderr
    assert "\n".join(traceback) in log.read_text(encoding="utf-8")
