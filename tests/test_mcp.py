"""The MCP server (kotlin-llm-mcp) driven as an agent's client drives it: the SDK's own client over stdio, with the
server a real subprocess (the console script) running one Kotlin session."""

from __future__ import annotations

import base64
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, ImageContent, TextContent, Tool

from maven_repository import greeter_repository
from mcp_client import CALL_TIMEOUT, SERVER, call, talk


def text(result: CallToolResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent)
    return result.content[0].text


def ok(snippet: str, value: str | None, stdout: str = "", stderr: str = "") -> dict[str, Any]:
    return {
        "status": "ok",
        "snippet": snippet,
        "value": value,
        "stdout": stdout,
        "stderr": stderr,
        "error": None,
        "ename": None,
        "phase": None,
        "warnings": [],
        "diagnostics": [],
        "resolved_versions": {},
        "truncated": False,
        "full_text_files": {},
    }


@pytest.fixture(scope="module")
def conversation() -> dict[str, Any]:
    """One server session's calls in order, by name: the state a later call sees is what the earlier ones left."""

    async def steps(session: ClientSession) -> dict[str, Any]:
        found: dict[str, Any] = {"tools": (await session.list_tools()).tools}
        found["value"] = await call(session, "run", code="1 + 2")
        found["declaration"] = await call(session, "run", code='val greeting = "Hello"')
        found["use"] = await call(session, "run", code='"$greeting, MCP"')
        found["check_error"] = await call(session, "check", code="val checked: Int = greeting")
        found["check_ok"] = await call(
            session, "check", code='@Deprecated("old") fun f() = 1\nprintln("not run")\nval fine = f()'
        )
        found["printed"] = await call(session, "run", code='println("out")\nSystem.err.println("err")')
        found["compile_error"] = await call(session, "run", code="val n: Int = undefinedName")
        found["exception"] = await call(session, "run", code='throw IllegalStateException("boom")')
        found["long"] = await call(session, "run", code='for (i in 1..500_000) println("line $i")')
        found["vars"] = await call(session, "vars")
        found["complete"] = await call(session, "complete", code="greeting.len", cursor=12)
        found["inspect"] = await call(session, "inspect", code="greeting.length", cursor=3)
        found["inspect_nothing"] = await call(session, "inspect", code="1 + 2", cursor=1)
        found["restart"] = await call(session, "restart")
        found["after_restart"] = await call(session, "run", code="greeting")
        found["vars_after_restart"] = await call(session, "vars")
        found["image"] = await call(
            session,
            "run",
            code="DISPLAY(java.awt.image.BufferedImage(3, 2, java.awt.image.BufferedImage.TYPE_INT_RGB))\n"
            "java.awt.image.BufferedImage(4, 5, java.awt.image.BufferedImage.TYPE_INT_RGB)",
        )
        return found

    return talk(steps)


def test_the_tools_and_their_schemas(conversation: dict[str, Any]) -> None:
    tools: list[Tool] = conversation["tools"]
    names = ["run", "check", "vars", "add_dependency", "complete", "inspect", "interrupt", "restart"]
    assert [tool.name for tool in tools] == names
    schemas = {tool.name: tool.input_schema for tool in tools}
    assert schemas["run"]["properties"] == {
        "code": {"title": "Code", "type": "string"},
        "timeout": {
            "anyOf": [{"type": "number"}, {"type": "null"}],
            "default": None,
            "description": "Seconds the run may take before it is interrupted; default: none",
            "title": "Timeout",
        },
    }
    assert schemas["run"]["required"] == ["code"] == schemas["check"]["required"]
    assert schemas["check"]["properties"] == {"code": {"title": "Code", "type": "string"}}
    assert schemas["vars"]["properties"] == {} == schemas["restart"]["properties"] == schemas["interrupt"]["properties"]
    assert schemas["add_dependency"]["required"] == ["coordinates"]
    assert set(schemas["add_dependency"]["properties"]) == {"coordinates", "repository"}
    outputs = {tool.name: tool.output_schema for tool in tools}
    run_output = outputs["run"]
    assert run_output is not None and outputs["add_dependency"] == run_output
    assert set(run_output["properties"]) == set(ok("snippet1.kts", None))
    assert outputs["vars"] is not None and set(outputs["vars"]["properties"]) == {"declarations"}
    assert schemas["complete"]["required"] == ["code", "cursor"] == schemas["inspect"]["required"]
    assert schemas["complete"]["properties"]["cursor"] == {"title": "Cursor", "type": "integer"}
    assert outputs["restart"] is not None and set(outputs["restart"]["properties"]) == {"snippets_lost"}
    assert outputs["interrupt"] is not None and set(outputs["interrupt"]["properties"]) == {"interrupted"}
    assert outputs["check"] is not None
    assert set(outputs["check"]["properties"]) == {"status", "snippet", "error", "warnings", "diagnostics"}


def test_a_value(conversation: dict[str, Any]) -> None:
    result: CallToolResult = conversation["value"]
    assert result.is_error is False
    assert result.structured_content == ok("snippet1.kts", "3")
    assert text(result) == "snippet1.kts: ok: 3"


def test_state_persists_between_runs(conversation: dict[str, Any]) -> None:
    declaration: CallToolResult = conversation["declaration"]
    assert declaration.structured_content == ok("snippet2.kts", None)
    assert text(declaration) == "snippet2.kts: ok: Unit"
    assert conversation["use"].structured_content == ok("snippet3.kts", "Hello, MCP")


def test_check_reports_as_a_run_would_and_changes_nothing(conversation: dict[str, Any]) -> None:
    error: CallToolResult = conversation["check_error"]
    report = (
        "snippet4.kts:1:18: error: Initializer type mismatch: expected 'Int', actual 'String'.\n"
        "  | val checked: Int <error>=</error> greeting"
    )
    assert error.is_error is False, "the check worked; its status says the code does not compile"
    assert error.structured_content is not None
    assert error.structured_content | {"diagnostics": []} == {
        "status": "error",
        "snippet": "snippet4.kts",
        "error": report,
        "warnings": [],
        "diagnostics": [],
    }
    assert [d["name"] for d in error.structured_content["diagnostics"]] == ["INITIALIZER_TYPE_MISMATCH"]
    assert text(error) == report
    fine: CallToolResult = conversation["check_ok"]
    warning = "snippet4.kts:3:12: warning: 'fun f(): Int' is deprecated. old.\n  | val fine = <error>f</error>()"
    assert fine.structured_content is not None
    assert fine.structured_content | {"diagnostics": []} == {
        "status": "ok",
        "snippet": "snippet4.kts",
        "error": None,
        "warnings": [warning],
        "diagnostics": [],
    }
    assert [d["name"] for d in fine.structured_content["diagnostics"]] == ["DEPRECATION"]
    assert text(fine) == f"snippet4.kts: compiles\n\n{warning}"
    # the next run is still snippet4.kts, prints only its own output (test_printed_output), and vars() lists no
    # `checked` or `fine` (test_vars)


def test_printed_output(conversation: dict[str, Any]) -> None:
    assert conversation["printed"].structured_content == ok("snippet4.kts", None, stdout="out\n", stderr="err\n")


def test_a_compile_error(conversation: dict[str, Any]) -> None:
    result: CallToolResult = conversation["compile_error"]
    assert result.is_error is True
    report = (
        "snippet5.kts:1:14: error: Unresolved reference 'undefinedName'.\n  | val n: Int = <error>undefinedName</error>"
    )
    assert result.structured_content is not None
    assert result.structured_content | {"diagnostics": []} == ok("snippet5.kts", None) | {
        "status": "error",
        "error": report,
        "ename": "CompilationError",
        "phase": "COMPILATION",
    }
    assert result.structured_content["diagnostics"] == [
        {
            "severity": "error",
            "name": "UNRESOLVED_REFERENCE",
            "message": "Unresolved reference 'undefinedName'.",
            "start": {"line": 1, "column": 14},
            "end": {"line": 1, "column": 27},
            "hints": {"imports": [], "names": [], "dependency": None},
            "hint": None,
            "follow_on_errors": 0,
        }
    ]
    assert text(result) == f"snippet5.kts: CompilationError\n\n{report}"


def test_an_exception(conversation: dict[str, Any]) -> None:
    result: CallToolResult = conversation["exception"]
    assert result.is_error is True
    report = (
        "java.lang.IllegalStateException: boom\n  at <snippet body>(snippet6.kts:1)\n"
        '  | throw IllegalStateException("boom")'
    )
    assert result.structured_content == ok("snippet6.kts", None) | {
        "status": "error",
        "error": report,
        "ename": "java.lang.IllegalStateException",
        "phase": "EVALUATION",
    }
    assert text(result) == f"snippet6.kts: java.lang.IllegalStateException\n\n{report}"


def test_long_output_is_cut_and_kept_whole_in_a_file(conversation: dict[str, Any]) -> None:
    result: CallToolResult = conversation["long"]
    whole = "".join(f"line {i}\n" for i in range(1, 500_001))
    assert len(whole) > 5_000_000
    content = result.structured_content
    assert content is not None and result.is_error is False
    path = content["full_text_files"]["stdout"]
    assert content == ok("snippet7.kts", None, stdout=whole[:20_000]) | {
        "truncated": True,
        "full_text_files": {"stdout": path},
    }
    assert Path(path).read_text(encoding="utf-8") == whole
    assert text(result) == f"snippet7.kts: ok: Unit (cut; the full texts are in {path})\n\nstdout:\n{whole[:20_000]}"
    Path(path).unlink()


def test_vars(conversation: dict[str, Any]) -> None:
    result: CallToolResult = conversation["vars"]
    assert result.is_error is False
    assert result.structured_content == {"declarations": 'val greeting: String = "Hello"'}
    assert text(result) == 'val greeting: String = "Hello"'


def test_complete_and_inspect(conversation: dict[str, Any]) -> None:
    complete: CallToolResult = conversation["complete"]
    assert complete.is_error is False
    assert complete.structured_content == {
        "matches": ["length"],
        "start": 9,
        "end": 12,
        "items": [{"text": "length", "kind": "property", "signature": "val length: Int"}],
    }
    assert text(complete) == "val length: Int"
    inspect: CallToolResult = conversation["inspect"]
    declaration = "val greeting: String\n\ndeclared in snippet2.kts\n\nvalue: java.lang.String = Hello"
    assert inspect.structured_content == {"found": True, "text": declaration}
    assert text(inspect) == declaration
    assert conversation["inspect_nothing"].structured_content == {"found": False, "text": None}
    assert text(conversation["inspect_nothing"]) == "(nothing to inspect there)"


def test_restart_starts_a_fresh_session(conversation: dict[str, Any]) -> None:
    restart: CallToolResult = conversation["restart"]
    # The seven runs and vars(); complete and inspect ran no snippet.
    assert restart.structured_content == {"snippets_lost": 8}
    assert text(restart) == "Restarted: the 8 snippets of the old session are lost."
    after: CallToolResult = conversation["after_restart"]
    assert after.is_error is True and after.structured_content is not None
    assert after.structured_content["snippet"] == "snippet1.kts"
    assert (
        after.structured_content["error"]
        == "snippet1.kts:1:1: error: Unresolved reference 'greeting'.\n  | <error>greeting</error>"
    )
    assert conversation["vars_after_restart"].structured_content == {"declarations": "no declarations yet"}


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Maven repository on 127.0.0.1 with com.example:greeter 1.0 and 1.1."""
    with greeter_repository(tmp_path_factory.mktemp("repo")) as url:
        yield url


def test_add_dependency_and_settings_with_python_m(repository: str, tmp_path: Path) -> None:
    async def steps(session: ClientSession) -> list[CallToolResult]:
        return [
            await call(session, "add_dependency", coordinates="com.example:greeter"),
            await call(session, "run", code="com.example.greeter.Greeter.version()"),
            await call(session, "add_dependency", coordinates="com.example:absent:1.0", repository=repository),
            await call(session, "run", code="Thread.sleep(60_000)"),
            await call(session, "run", code='fun vars() = "a function of its own"'),
            await call(session, "vars"),
        ]

    settings = ["--repository", repository, "--local-repository", str(tmp_path / "local"), "--cell-time-limit", "2"]
    added, used, absent, slow, _, listed = talk(
        steps, settings, command=[sys.executable, "-m", "kotlin_llm_kernel.mcp"]
    )
    assert added.is_error is False
    assert added.structured_content == ok("snippet1.kts", None) | {"resolved_versions": {"com.example:greeter": "1.1"}}
    assert used.structured_content == ok("snippet2.kts", "1.1")
    assert absent.is_error is True and absent.structured_content is not None
    assert absent.structured_content["error"] == (
        f"snippet3.kts:2:1: error: Cannot resolve 'com.example:absent:1.0': not found in {repository}\n"
        '  | <error>@file:DependsOn("com.example:absent:1.0")</error>'
    )
    assert [d["message"] for d in absent.structured_content["diagnostics"]] == [
        f"Cannot resolve 'com.example:absent:1.0': not found in {repository}"
    ]
    assert slow.is_error is True and slow.structured_content is not None
    assert slow.structured_content["ename"] == "TimeLimitExceeded"
    assert slow.structured_content["error"] == (
        "TimeLimitExceeded: snippet4.kts ran longer than the time limit of 2 s (setting cell_time_limit) and was "
        "interrupted; the session keeps its state\njava.lang.InterruptedException: sleep interrupted\n"
        "  at <snippet body>(snippet4.kts:1)\n  | Thread.sleep(60_000)\nhint: split the work into shorter cells, or "
        "raise the limit (setting cell_time_limit; KERNEL_CELL_TIME_LIMIT when a gateway starts the kernel)"
    )
    assert listed.structured_content == {"declarations": "fun vars(): String"}


def test_images_are_image_content_with_a_line_of_text(conversation: dict[str, Any]) -> None:
    result: CallToolResult = conversation["image"]
    assert result.is_error is False
    summary, *images = result.content
    assert isinstance(summary, TextContent)
    assert summary.text.startswith("snippet3.kts: ok: ")
    assert summary.text.endswith(" (2 images: image/png, image/png)")
    sizes = []
    for image in images:
        assert isinstance(image, ImageContent) and image.mime_type == "image/png"
        png = base64.b64decode(image.data)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        sizes.append(struct.unpack(">II", png[16:24]))  # the IHDR chunk's width and height
    assert sizes == [(3, 2), (4, 5)]


#: A client's timeout that progress resets, as the TypeScript SDK's resetTimeoutOnProgress does: shorter than the run
#: it waits for, so that only the progress keeps the request alive.
PROGRESS_TIMEOUT = 4
RUN_SECONDS = 10


def test_progress_keeps_a_long_run_alive_and_cancelling_or_interrupting_stops_it() -> None:
    async def steps(session: ClientSession) -> dict[str, Any]:
        found: dict[str, Any] = {"kept": await call(session, "run", code="val kept = 7")}
        progress: list[tuple[float, str | None]] = []
        with anyio.CancelScope() as patience:
            patience.deadline = anyio.current_time() + PROGRESS_TIMEOUT

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append((value, message))
                patience.deadline = anyio.current_time() + PROGRESS_TIMEOUT

            found["long"] = await session.call_tool(
                "run",
                {"code": f'println("started")\nThread.sleep({RUN_SECONDS * 1000})\n"slept"'},
                progress_callback=on_progress,
            )
        found["gave_up"] = patience.cancelled_caught
        found["progress"] = progress

        async def running(code: str, started: anyio.Event, into: dict[str, Any] | None = None) -> None:
            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                started.set()

            result = await session.call_tool(
                "run", {"code": code}, read_timeout_seconds=CALL_TIMEOUT, progress_callback=on_progress
            )
            if into is not None:
                into["interrupted_run"] = result

        # cancelling the request interrupts the run: the next run does not wait behind an endless loop
        started = anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(running, "var spins = 0L\nwhile (true) { spins++ }", started)
            await started.wait()
            group.cancel_scope.cancel()
        found["after_cancel"] = await call(session, "run", code="kept")
        # interrupt() stops the run another request is waiting for, which returns the interrupted error
        started = anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(running, "Thread.sleep(600_000)", started, found)
            await started.wait()
            found["interrupt"] = await call(session, "interrupt")
        found["interrupt_idle"] = await call(session, "interrupt")
        found["timeout"] = await call(session, "run", code="Thread.sleep(60_000)", timeout=1)
        found["after"] = await call(session, "run", code="kept + 1")
        return found

    found = talk(steps)
    assert found["kept"].structured_content == ok("snippet1.kts", None)
    assert found["gave_up"] is False, "the progress did not keep the long run alive"
    assert found["long"].structured_content == ok("snippet2.kts", "slept", stdout="started\n")
    progress = found["progress"]
    assert len(progress) >= RUN_SECONDS // 2, progress
    assert [value for value, _ in progress] == sorted(value for value, _ in progress)
    # the printed line is handed over while the cell runs: in the messages from the first that follows it
    assert all(message.startswith(f"running for {value:.0f} s") for value, message in progress), progress
    assert progress[-1][1] == f"running for {progress[-1][0]:.0f} s; last printed: started"
    # snippet3 was the cancelled loop
    assert found["after_cancel"].structured_content == ok("snippet4.kts", "7")
    interrupted = found["interrupted_run"]
    assert interrupted.is_error is True and interrupted.structured_content is not None
    assert interrupted.structured_content["snippet"] == "snippet5.kts"
    assert interrupted.structured_content["ename"] == "java.lang.InterruptedException"
    assert interrupted.structured_content["error"].startswith(
        "java.lang.InterruptedException: sleep interrupted\n  at <snippet body>(snippet5.kts:1)"
    )
    assert found["interrupt"].structured_content == {"interrupted": True}
    assert text(found["interrupt"]) == "Interrupted the running snippet."
    assert found["interrupt_idle"].structured_content == {"interrupted": False}
    assert text(found["interrupt_idle"]) == "Nothing was running."
    timeout = found["timeout"]
    assert timeout.is_error is True and timeout.structured_content is not None
    assert timeout.structured_content["ename"] == "TimeLimitExceeded"
    assert timeout.structured_content["error"] == (
        "TimeLimitExceeded: snippet6.kts ran longer than the time limit of 1 s (a limit of this run alone) and was "
        "interrupted; the session keeps its state\njava.lang.InterruptedException: sleep interrupted\n"
        "  at <snippet body>(snippet6.kts:1)\n  | Thread.sleep(60_000)\n"
        "hint: split the work into shorter cells, or give this run more time"
    )
    assert found["after"].structured_content == ok("snippet7.kts", "8")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_streamable_http_on_the_loopback(tmp_path: Path) -> None:
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen([str(SERVER), "--http", str(port), "--max-output-chars", "5"], stderr=log)
    try:
        deadline = time.monotonic() + 120  # catches a server that never listens
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, (tmp_path / "server.log").read_text()
            assert time.monotonic() < deadline, "the server did not listen"
            time.sleep(0.1)

        async def exchange() -> list[CallToolResult]:
            async with (
                streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return [
                    await call(session, "run", code='val word = "abcdefgh"'),
                    await call(session, "run", code="word"),
                ]

        declared, used = anyio.run(exchange)
    finally:
        server.terminate()
        server.wait(60)
        log.close()
    assert declared.structured_content == ok("snippet1.kts", None)
    content = used.structured_content
    assert content is not None
    path = content["full_text_files"]["value"]
    assert content == ok("snippet2.kts", "abcde") | {"truncated": True, "full_text_files": {"value": path}}
    assert Path(path).read_text(encoding="utf-8") == "abcdefgh"
    Path(path).unlink()
