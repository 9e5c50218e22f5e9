"""kotlin-llm-mcp --sandbox against the escape table, driven as an agent drives it: the SDK's client over stdio, the
server a real subprocess in a real bwrap sandbox (as the dedicated user when the tests run as root). Each escape runs
first in a server without the sandbox, where it must succeed, then in a sandboxed one, where it must fail with a
located error while the session keeps its state."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp_types import CallToolResult

from maven_repository import greeter_repository
from mcp_client import SERVER, call, run, talk
from sandbox_escapes import (
    ESCAPES,
    PACKAGE,
    SECRET,
    SECRET_NAME,
    Escape,
    Facts,
    escape_facts,
    escape_targets,
    open_directory,
    require_sandbox,
)


def content(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return result.structured_content


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Maven repository on the host's 127.0.0.1 with com.example:greeter 1.0 and 1.1."""
    with greeter_repository(tmp_path_factory.mktemp("repo")) as url:
        yield url


@pytest.fixture(scope="module")
def targets() -> Iterator[tuple[Path, int]]:
    with escape_targets() as found:
        yield found


def environment() -> dict[str, str]:
    return dict(os.environ) | {SECRET_NAME: SECRET}


def escapes(facts: Facts, arguments: Sequence[str], cwd: Path) -> dict[str, Any]:
    """Each escape in one server session, with ``before`` (declared first) read after each."""

    async def steps(session: ClientSession) -> dict[str, Any]:
        found: dict[str, Any] = {"declared": await run(session, "val before = 7")}
        for escape in ESCAPES:
            found[escape.name] = await run(session, escape.cell(facts))
            found[f"{escape.name}/before"] = await run(session, "before")
        found["exit"] = await run(session, "System.exit(3)")
        found["exit/before"] = await run(session, "before")
        return found

    try:
        return talk(steps, arguments, cwd, environment())
    finally:
        facts.helper.kill()
        facts.helper.wait()


@pytest.fixture(scope="module")
def unsandboxed(targets: tuple[Path, int]) -> Iterator[tuple[Facts, dict[str, Any]]]:
    cwd = open_directory()
    try:
        with escape_facts(targets) as facts:
            yield facts, escapes(facts, [], cwd)
    finally:
        shutil.rmtree(cwd)


@pytest.fixture(scope="module")
def sandboxed(targets: tuple[Path, int]) -> Iterator[tuple[Facts, dict[str, Any]]]:
    require_sandbox()
    parent = open_directory()
    try:
        with escape_facts(targets) as facts:
            yield facts, escapes(facts, ["--sandbox", "--workspace", str(parent / "workspace")], parent)
    finally:
        shutil.rmtree(parent)


@pytest.mark.parametrize("escape", ESCAPES, ids=[escape.name for escape in ESCAPES])
def test_each_escape_succeeds_without_the_sandbox(escape: Escape, unsandboxed: tuple[Facts, dict[str, Any]]) -> None:
    facts, found = unsandboxed
    result = content(found[escape.name])
    assert (result["status"], result["error"]) == ("ok", None)
    assert result["value"] == escape.value.format(outside=facts.outside, package=PACKAGE)
    assert content(found[f"{escape.name}/before"])["value"] == "7"


def test_the_helper_was_killed_without_the_sandbox(unsandboxed: tuple[Facts, dict[str, Any]]) -> None:
    facts, _ = unsandboxed
    assert facts.helper.returncode is not None


@pytest.mark.parametrize("escape", ESCAPES, ids=[escape.name for escape in ESCAPES])
def test_each_escape_fails_in_the_sandbox_and_the_session_keeps_its_state(
    escape: Escape, sandboxed: tuple[Facts, dict[str, Any]]
) -> None:
    facts, found = sandboxed
    result = content(found[escape.name])
    assert result["status"] == "error", result
    expected = escape.error.format(marker=facts.marker, outside=facts.outside, package=PACKAGE, pid=facts.helper.pid)
    lines = result["error"].splitlines()
    assert lines[0] == expected
    assert any(line.startswith("  at <snippet body>(snippet") for line in lines), "located in the cell"
    assert content(found[f"{escape.name}/before"])["value"] == "7"


@pytest.mark.parametrize("name", ["host_loopback_server", "resolved_name"])
def test_a_refused_connection_says_the_sandbox_limits_the_network(
    name: str, sandboxed: tuple[Facts, dict[str, Any]]
) -> None:
    _, found = sandboxed
    assert content(found[name])["error"].splitlines()[-1] == (
        "hint: the sandbox limits the network (--network maven): only the session's Maven repositories are reachable, "
        "through its proxy; start the session with --network all to open the network"
    )


def test_system_exit_is_refused_with_and_without_the_sandbox(
    unsandboxed: tuple[Facts, dict[str, Any]], sandboxed: tuple[Facts, dict[str, Any]]
) -> None:
    for _, found in (unsandboxed, sandboxed):
        result = content(found["exit"])
        assert result["ename"] == "org.kotlinllm.script.runtime.ExitRefusedException"
        assert result["error"].startswith(
            "org.kotlinllm.script.runtime.ExitRefusedException: System.exit(3) was refused"
        )
        assert content(found["exit/before"])["value"] == "7"


def dependency_steps(repository: str) -> Callable[[ClientSession], Awaitable[list[CallToolResult]]]:
    async def steps(session: ClientSession) -> list[CallToolResult]:
        return [
            # version-less: its maven-metadata.xml through the JDK's HttpClient, the jar through maven-resolver
            await call(session, "add_dependency", coordinates="com.example:greeter"),
            await run(session, "com.example.greeter.Greeter.version()"),
            await run(session, '@file:Repository("https://example.com/maven/")\n@file:DependsOn("com.example:x:1.0")'),
        ]

    return steps


def test_network_maven_reaches_the_sessions_repositories_only(repository: str) -> None:
    require_sandbox()
    parent = open_directory()
    try:
        arguments = ["--sandbox", "--workspace", str(parent / "workspace"), "--repository", repository]
        latest, used, elsewhere = talk(dependency_steps(repository), arguments, parent)
    finally:
        shutil.rmtree(parent)
    assert content(latest)["status"] == "ok", content(latest)
    assert content(latest)["resolved_versions"] == {"com.example:greeter": "1.1"}
    assert content(used)["value"] == "1.1"
    assert content(elsewhere)["status"] == "error"
    # the engine's words for the proxy's 403: told by the sandbox (KOTLIN_LLM_SANDBOX_NETWORK) what refused it
    assert content(elsewhere)["error"].splitlines()[0] == (
        "snippet3.kts:2:1: error: Cannot resolve 'com.example:x:1.0': the sandbox refused https://example.com/maven/ "
        "(--network maven reaches only the session's Maven repositories); configure it for the session (--repository "
        "URL) or start the session with --network all"
    )


def test_network_none_refuses_the_repository(repository: str) -> None:
    require_sandbox()
    parent = open_directory()
    try:
        arguments = ["--sandbox", "--network", "none", "--workspace", str(parent / "ws"), "--repository", repository]
        latest, *_ = talk(dependency_steps(repository), arguments, parent)
    finally:
        shutil.rmtree(parent)
    assert content(latest)["status"] == "error"
    assert content(latest)["error"].splitlines()[0] == (
        f"snippet1.kts:1:1: error: Cannot resolve 'com.example:greeter': cannot connect to {repository}: Connection "
        "refused"
    )


def test_the_workspace_keeps_files_across_cells_and_restarts_and_holds_cut_results() -> None:
    require_sandbox()
    parent = open_directory()
    workspace = parent / "workspace"

    async def steps(session: ClientSession) -> list[CallToolResult]:
        return [
            await run(session, 'java.io.File("notes.txt").writeText("kept")'),
            await run(session, 'java.io.File("notes.txt").readText()'),
            await call(session, "restart"),
            await run(session, 'java.io.File("notes.txt").readText()'),
            await run(session, 'java.io.File("notes.txt").absolutePath'),
            await run(session, '"x".repeat(30_000)'),
        ]

    try:
        written, read, _, after_restart, where, long = talk(steps, ["--sandbox", "--workspace", str(workspace)], parent)
        assert content(written)["status"] == "ok"
        assert content(read)["value"] == "kept" == content(after_restart)["value"]
        assert content(where)["value"] == str(workspace / "notes.txt")
        assert (workspace / "notes.txt").read_text(encoding="utf-8") == "kept"
        cut = content(long)["full_text_files"]["value"]
        assert Path(cut).parent == workspace / ".tmp"
        assert Path(cut).read_text(encoding="utf-8") == "x" * 30_000
    finally:
        shutil.rmtree(parent)


def test_without_bwrap_the_server_refuses_to_start() -> None:
    empty = open_directory()
    try:
        ran = subprocess.run(
            [str(SERVER), "--sandbox"],
            env=dict(os.environ) | {"PATH": str(empty)},
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    finally:
        shutil.rmtree(empty)
    assert ran.returncode == 1
    assert ran.stdout == ""
    assert ran.stderr == (
        "kotlin-llm-mcp: the sandbox cannot start, so the server does not: bubblewrap (bwrap) is not installed: "
        "install it (Debian/Ubuntu: `apt-get install bubblewrap`; scripts/setup.sh does).\n"
    )


def test_network_all_opens_the_hosts_loopback(targets: tuple[Path, int], repository: str) -> None:
    _, host_server = targets
    require_sandbox()
    parent = open_directory()
    reach = f'java.net.Socket("127.0.0.1", {host_server}).use {{ it.getInputStream().bufferedReader().readLine() }}'

    async def steps(session: ClientSession) -> list[CallToolResult]:
        return [
            await run(session, reach),
            await call(session, "add_dependency", coordinates="com.example:greeter"),
        ]

    arguments = ["--sandbox", "--network", "all", "--workspace", str(parent / "ws"), "--repository", repository]
    try:
        reached, added = talk(steps, arguments, parent)
    finally:
        shutil.rmtree(parent)
    assert content(reached)["value"] == "host server"
    assert content(added)["resolved_versions"] == {"com.example:greeter": "1.1"}, "the repository as given"


def test_a_workspace_the_sandbox_user_cannot_write_is_refused() -> None:
    require_sandbox()
    parent = open_directory()  # root's, mode 755
    try:
        ran = subprocess.run(
            [str(SERVER), "--sandbox", "--workspace", str(parent)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    finally:
        shutil.rmtree(parent)
    assert ran.returncode == 1
    assert ran.stderr == (
        "kotlin-llm-mcp: the sandbox cannot start, so the server does not: The sandbox user 'kotlin-llm-sandbox' "
        f"cannot write the workspace {parent}: give it that user (`chown kotlin-llm-sandbox {parent}`) or choose "
        "another one.\n"
    )
