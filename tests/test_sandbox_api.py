"""The Python API's sandbox, SessionOptions(sandbox=SandboxOptions(...)): the session runs in a child process inside
a real bwrap sandbox, called as an in-process session is. The escape table runs first in an in-process session
without the sandbox, where each escape must succeed, then in a sandboxed one, where it must fail with a located error
while the session keeps its state."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from kotlin_llm_kernel.api import SandboxOptions, ScriptSession, SessionOptions
from kotlin_llm_kernel.sandbox.host import SandboxUnavailable
from kotlin_llm_kernel.session.results import Error, Value

from maven_repository import add_artifact, add_metadata, greeter, served
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

Outcomes = dict[str, Value | Error]


@pytest.fixture(scope="module")
def secret() -> Iterator[None]:
    """The secret in this process's environment (the sandboxed session's parent; tests/conftest.py sets it before
    any test, as the in-process JVM reads its environment once)."""
    assert os.environ.get(SECRET_NAME) == SECRET
    yield


@pytest.fixture(scope="module")
def targets(secret: None) -> Iterator[tuple[Path, int]]:
    with escape_targets() as found:
        yield found


def escapes(session: ScriptSession, facts: Facts) -> Outcomes:
    found: Outcomes = {"declared": session.execute("val before = 7")}
    try:
        for escape in ESCAPES:
            found[escape.name] = session.execute(escape.cell(facts))
            found[f"{escape.name}/before"] = session.execute("before")
        found["exit"] = session.execute("System.exit(3)")
        found["exit/before"] = session.execute("before")
    finally:
        facts.helper.kill()
        facts.helper.wait()
    return found


@pytest.fixture(scope="module")
def unsandboxed(targets: tuple[Path, int]) -> Iterator[tuple[Facts, Outcomes]]:
    cwd = os.getcwd()
    work = open_directory()
    os.chdir(work)  # the file-size escape writes to the working directory
    try:
        with escape_facts(targets) as facts, ScriptSession(options=SessionOptions(echo=False)) as session:
            yield facts, escapes(session, facts)
    finally:
        os.chdir(cwd)
        shutil.rmtree(work)


@pytest.fixture(scope="module")
def sandboxed(targets: tuple[Path, int]) -> Iterator[tuple[Facts, Outcomes]]:
    require_sandbox()
    options = SessionOptions(echo=False, sandbox=SandboxOptions())
    with escape_facts(targets) as facts, ScriptSession(options=options) as session:
        yield facts, escapes(session, facts)


@pytest.mark.parametrize("escape", ESCAPES, ids=[escape.name for escape in ESCAPES])
def test_each_escape_succeeds_without_the_sandbox(escape: Escape, unsandboxed: tuple[Facts, Outcomes]) -> None:
    facts, found = unsandboxed
    result = found[escape.name]
    assert isinstance(result, Value), result
    assert result.text == escape.value.format(outside=facts.outside, package=PACKAGE)
    before = found[f"{escape.name}/before"]
    assert isinstance(before, Value) and before.value == 7


@pytest.mark.parametrize("escape", ESCAPES, ids=[escape.name for escape in ESCAPES])
def test_each_escape_fails_in_the_sandbox_and_the_session_keeps_its_state(
    escape: Escape, sandboxed: tuple[Facts, Outcomes]
) -> None:
    facts, found = sandboxed
    result = found[escape.name]
    assert isinstance(result, Error), result
    expected = escape.error.format(marker=facts.marker, outside=facts.outside, package=PACKAGE, pid=facts.helper.pid)
    assert result.message.splitlines()[0] == expected
    assert any(line.startswith("  at <snippet body>(snippet") for line in result.traceback), "located in the cell"
    before = found[f"{escape.name}/before"]
    assert isinstance(before, Value) and before.value == 7


def test_system_exit_is_refused_with_and_without_the_sandbox(
    unsandboxed: tuple[Facts, Outcomes], sandboxed: tuple[Facts, Outcomes]
) -> None:
    for _, found in (unsandboxed, sandboxed):
        result = found["exit"]
        assert isinstance(result, Error)
        assert result.ename == "org.kotlinllm.script.runtime.ExitRefusedException"
        before = found["exit/before"]
        assert isinstance(before, Value) and before.value == 7


def test_a_sandboxed_session_is_called_as_an_in_process_one(tmp_path_factory: pytest.TempPathFactory) -> None:
    require_sandbox()
    root = tmp_path_factory.mktemp("repo")
    for version in ("1.0", "1.1"):
        add_artifact(root, "com.example", "greeter", version, greeter(version))
    add_metadata(root, "com.example", "greeter", ["1.0", "1.1"])
    parent = open_directory()
    workspace = parent / "workspace"
    printed: list[tuple[str, str]] = []
    asked: list[tuple[str, bool]] = []

    def answer(prompt: str, password: bool) -> str | None:
        asked.append((prompt, password))
        return "typed"

    try:
        with served(root) as repository:
            options = SessionOptions(
                echo=False,
                stdin=answer,
                repositories=(repository,),
                sandbox=SandboxOptions(workspace=workspace),
            )
            with ScriptSession({"greeting": "Hello"}, options=options, count=3) as session:
                assert session.workspace == str(workspace)
                shown = session.execute(
                    'println("out")\nSystem.err.println("err")\n"$greeting $count"',
                    printed=lambda s, t: printed.append((s, t)),
                )
                read = session.execute("readln()")
                added = session.execute('@file:DependsOn("com.example:greeter")\ncom.example.greeter.Greeter.version()')
                written = session.execute('java.io.File("kept.txt").writeText("kept")')
                checked = session.check('val n: Int = "s"')
                completion = session.complete("greeting.len", 12)
                inspected = session.inspect("greeting", 3)
                number = session.last_snippet_number
            with ScriptSession(
                options=SessionOptions(echo=False, sandbox=SandboxOptions(workspace=workspace))
            ) as again:
                kept = again.execute('java.io.File("kept.txt").readText()')
    finally:
        shutil.rmtree(parent)
    assert isinstance(shown, Value) and shown.value == "Hello 3"
    assert (shown.stdout, shown.stderr) == ("out\n", "err\n")
    assert printed == [("stdout", "out\n"), ("stderr", "err\n")]
    assert isinstance(read, Value) and read.value == "typed" and asked == [("", False)]
    assert isinstance(added, Value) and added.value == "1.1", added
    assert added.resolved_versions == {"com.example:greeter": "1.1"}
    assert isinstance(written, Value) and written.is_unit
    assert isinstance(checked, Error) and checked.message.startswith(
        "snippet5.kts:1:12: error: Initializer type mismatch: expected 'Int', actual 'String'."
    )
    assert checked.diagnostics[0].start == (1, 12), "tuples cross as tuples"
    assert completion.matches == ["length"]
    assert inspected is not None and inspected.startswith("val greeting: String")
    assert number == 4
    assert isinstance(kept, Value) and kept.value == "kept"


def test_a_sandbox_that_cannot_start_is_refused_naming_what_is_missing() -> None:
    if os.geteuid() != 0:
        pytest.fail("this test checks the dedicated user, which only root sandboxes need: run it as root, as CI does")
    with pytest.raises(SandboxUnavailable) as raised:
        ScriptSession(options=SessionOptions(sandbox=SandboxOptions(user="no-such-sandbox-user")))
    assert str(raised.value).startswith(
        "The sandbox runs as the dedicated user 'no-such-sandbox-user' when started by root (bwrap run by root is no "
        "sandbox), and that user does not exist"
    )


def test_a_sandboxed_snippet_is_interrupted_and_timed_out_as_an_in_process_one() -> None:
    require_sandbox()
    with ScriptSession(options=SessionOptions(echo=False, sandbox=SandboxOptions(network="none"))) as session:
        session.execute("val before = 7")
        interrupted: list[bool] = []

        def on_print(stream: str, text: str) -> None:
            if text == "started\n":  # the snippet runs: interrupt it from another thread, as an agent would
                thread = threading.Thread(target=lambda: interrupted.append(session.interrupt()))
                thread.start()

        stopped = session.execute('println("started")\nThread.sleep(60_000)', printed=on_print)
        timed_out = session.execute("Thread.sleep(60_000)", time_limit=1)
        before = session.execute("before")
    assert isinstance(stopped, Error) and stopped.message.splitlines()[0] == (
        "java.lang.InterruptedException: sleep interrupted"
    ), stopped
    assert interrupted == [True]
    assert isinstance(timed_out, Error) and timed_out.ename == "TimeLimitExceeded"
    assert isinstance(before, Value) and before.value == 7
