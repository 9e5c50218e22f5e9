"""The MCP server (kotlin-llm-mcp) driven as an agent's client drives it: the SDK's own client over stdio, with the
server a real subprocess (the console script) running one Kotlin session."""

from __future__ import annotations

import base64
import os
import struct
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, ImageContent, TextContent, Tool

from maven_repository import add_artifact, add_metadata, greeter, served

SERVER = Path(sys.executable).parent / "kotlin-llm-mcp"
#: Seconds for a call, the first starting the JVM and the compiler.
CALL_TIMEOUT = 180

T = TypeVar("T")


def talk(steps: Callable[[ClientSession], Awaitable[T]], command: Sequence[str] = (str(SERVER),)) -> T:
    """Starts a server with ``command``, runs ``steps`` against it over stdio and returns what they return; the
    server then ends."""

    async def exchange() -> T:
        # The whole environment, so that the server sees the test's private cache and Jupyter directories.
        parameters = StdioServerParameters(command=command[0], args=list(command[1:]), env=dict(os.environ))
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await steps(session)

    return anyio.run(exchange)


async def call(session: ClientSession, tool: str, **arguments: Any) -> CallToolResult:
    return await session.call_tool(tool, arguments, read_timeout_seconds=CALL_TIMEOUT)


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
        found["printed"] = await call(session, "run", code='println("out")\nSystem.err.println("err")')
        found["compile_error"] = await call(session, "run", code="val n: Int = undefinedName")
        found["exception"] = await call(session, "run", code='throw IllegalStateException("boom")')
        found["long"] = await call(session, "run", code='for (i in 1..100_000) println("line $i")')
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
    assert [tool.name for tool in tools] == ["run", "vars", "add_dependency", "complete", "inspect", "restart"]
    schemas = {tool.name: tool.input_schema for tool in tools}
    assert schemas["run"]["properties"] == {"code": {"title": "Code", "type": "string"}}
    assert schemas["run"]["required"] == ["code"]
    assert schemas["vars"]["properties"] == {} and schemas["restart"]["properties"] == {}
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
    assert (
        text(result)
        == "snippet5.kts: CompilationError: snippet5.kts:1:14: error: Unresolved reference 'undefinedName'."
    )


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
    assert text(result) == "snippet6.kts: java.lang.IllegalStateException: boom"


def test_long_output_is_cut_and_kept_whole_in_a_file(conversation: dict[str, Any]) -> None:
    result: CallToolResult = conversation["long"]
    whole = "".join(f"line {i}\n" for i in range(1, 100_001))
    content = result.structured_content
    assert content is not None and result.is_error is False
    path = content["full_text_files"]["stdout"]
    assert content == ok("snippet7.kts", None, stdout=whole[:20_000]) | {
        "truncated": True,
        "full_text_files": {"stdout": path},
    }
    assert Path(path).read_text(encoding="utf-8") == whole
    assert text(result) == f"snippet7.kts: ok: Unit (cut; the full texts are in {path})"
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
    root = tmp_path_factory.mktemp("repo")
    for version in ("1.0", "1.1"):
        add_artifact(root, "com.example", "greeter", version, greeter(version))
    add_metadata(root, "com.example", "greeter", ["1.0", "1.1"])
    with served(root) as url:
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
    added, used, absent, slow, _, listed = talk(steps, [sys.executable, "-m", "kotlin_llm_kernel.mcp", *settings])
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
