"""The Python API: ScriptSession with provided properties, Value/Error results, output, cancellation."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kotlin_llm_kernel import Error, ScriptSession, SessionOptions, Value

from kernel_client import jdk_home


@pytest.fixture(scope="module")
def session() -> Iterator[ScriptSession]:
    with ScriptSession(
        {"options": "a property named like a parameter"}, greeting="Hello", answer=41, names=["Alice"]
    ) as s:
        yield s


def test_values_and_state(session: ScriptSession) -> None:
    assert session.execute("val more = mutableListOf<String>()").is_unit
    session.execute('more += "Bob"')
    result = session.execute('"$greeting ${(names + more).joinToString()}"')
    assert isinstance(result, Value)
    assert result.value == "Hello Alice, Bob" and result.text == "Hello Alice, Bob"
    assert session.execute("answer + 1").value == 42
    assert session.execute("options").value == "a property named like a parameter"
    assert session.execute("null").value is None


def test_errors(session: ScriptSession) -> None:
    number = session.last_snippet_number + 1
    error = session.execute("asdf")
    assert isinstance(error, Error) and not error.ok
    assert error.phase == "COMPILATION" and error.ename == "CompilationError"
    assert error.message.startswith(f"snippet{number}.kts:1:1: error: Unresolved reference 'asdf'.")
    thrown = session.execute('error("boom")')
    assert isinstance(thrown, Error) and thrown.phase == "EVALUATION"
    assert (thrown.ename, thrown.evalue) == ("java.lang.IllegalStateException", "boom")
    assert (error.snippet_number, thrown.snippet_number) == (number, number + 1), "each outcome carries its number"
    assert session.check("1").snippet_number == number + 2, "a check: the number it was checked as"
    assert session.execute("1").snippet_number == number + 2


def test_output_is_collected(session: ScriptSession, capsys: pytest.CaptureFixture[str]) -> None:
    result = session.execute('println("out")\nSystem.err.println("err")\n1')
    assert (result.stdout, result.stderr, result.value) == ("out\n", "err\n", 1)
    assert capsys.readouterr().out == "out\n"


def test_warnings(session: ScriptSession) -> None:
    result = session.execute('@Deprecated("x")\nfun old() = 1\nold()')
    assert isinstance(result, Value) and result.warnings and "warning:" in result.warnings[0]


def test_quiet_session() -> None:
    with ScriptSession(options=SessionOptions(echo=False)) as quiet:
        assert quiet.execute('println("hidden"); 2').stdout == "hidden\n"


def test_ctrl_c_cancels_the_snippet(tmp_path: Path) -> None:
    # The snippet sends the process its own SIGINT, as Ctrl-C would, while it runs: an interrupt before the sleep
    # starts is not lost (the thread stays interrupted), so no timing is involved.
    script = textwrap.dedent(
        """
        import signal
        from kotlin_llm_kernel import ScriptSession
        # Ctrl-C as in a terminal: a process started in the background (as CI may be) inherits SIGINT ignored
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with ScriptSession() as s:
            s.execute("val kept = 1")
            try:
                returned = s.execute(
                    'ProcessBuilder("kill", "-INT", ProcessHandle.current().pid().toString()).start().waitFor()\\n'
                    "Thread.sleep(60000)"
                )
                print("returned", returned)
            except KeyboardInterrupt:
                print("interrupted")
            print("kept", s.execute("kept").value)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "interrupted" in out.stdout, out.stdout + out.stderr
    assert "kept 1" in out.stdout
    assert out.returncode == 0, out.stderr


def test_runs_on_jdk25(tmp_path: Path) -> None:
    home = jdk_home(25)
    script = "from kotlin_llm_kernel import ScriptSession\nwith ScriptSession() as s: print(s.execute('6 * 7').value)"
    env = {"PATH": "/usr/bin:/bin", "JAVA_HOME": home, "HOME": str(Path.home())}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path
    )
    assert out.stdout.strip() == "42", out.stderr
    assert "WARNING" not in out.stderr, out.stderr


def test_magics_and_vars_in_the_python_api() -> None:
    with ScriptSession(greeting="Hello", options=SessionOptions(echo=False)) as session:
        error = session.execute(":helpme")
        assert isinstance(error, Error) and error.phase == "COMPILATION"
        assert error.evalue == (
            f"snippet{session.last_snippet_number}.kts:1:1: error: `:helpme` is not a REPL command of this kernel, "
            "and no Kotlin statement starts with `:`"
        )
        session.execute("val names = mutableListOf(greeting)")
        listing = 'val greeting: String\nval names: MutableList<String> = ["Hello"]'
        assert session.execute("vars()").text == listing
        assert session.execute(":vars").text == listing


def test_a_snippet_past_the_time_limit_is_interrupted_and_the_session_goes_on() -> None:
    def slow_answer(prompt: str, password: bool) -> str:
        time.sleep(2.5)  # wall-clock time past the limit goes by while the read waits: it must not count
        return "typed"

    options = SessionOptions(echo=False, cell_time_limit=2, stdin=slow_answer)
    with ScriptSession(options=options) as limited:
        assert limited.execute("val keep = 42").ok
        for code, first in [
            ("var n = 0L\nwhile (true) { n++ }", "java.lang.InterruptedException: the snippet was cancelled"),
            ("java.math.BigInteger.valueOf(3).pow(300_000_000).bitLength()", "org.kotlinllm.script.runtime.Snippet"),
        ]:
            number = limited.last_snippet_number + 1
            error = limited.execute(code)
            assert isinstance(error, Error), error
            assert error.ename == "TimeLimitExceeded"
            assert error.evalue == (
                f"snippet{number}.kts ran longer than the time limit of 2 s (setting cell_time_limit) and was "
                "interrupted; the session keeps its state"
            )
            assert error.traceback[0] == f"TimeLimitExceeded: {error.evalue}"
            assert error.traceback[1].startswith(first), error.message
            assert limited.execute("keep").value == 42
        printing = limited.execute('var i = 0\nwhile (true) { if (++i % 10_000 == 0) println("still going") }')
        assert isinstance(printing, Error) and printing.ename == "TimeLimitExceeded", "output keeps coming meanwhile"
        assert printing.stdout.startswith("still going\n")
        waited = limited.execute('val line = readLine()\n"$line $keep"')
        assert isinstance(waited, Value), waited
        assert waited.value == "typed 42"


def test_a_snippet_that_cannot_be_stopped_makes_later_ones_busy_until_it_ends() -> None:
    """As in the kernel (tests/test_stop.py): a read of a child's output waits in native code, which neither the
    cancellation nor a stop ends; the child's end does."""
    with ScriptSession(options=SessionOptions(echo=False, cell_time_limit=2)) as limited:
        assert limited.execute("val keep = 42").ok
        number = limited.last_snippet_number + 1
        stuck = limited.execute(
            'val child = ProcessBuilder("sleep", "600").start()\nprintln(child.pid())\nchild.inputStream.read()'
        )
        assert isinstance(stuck, Error), stuck
        assert stuck.ename == "TimeLimitExceeded"
        assert stuck.evalue == (
            f"snippet{number}.kts ran longer than the time limit of 2 s (setting cell_time_limit) and did not stop "
            "when interrupted: it runs on"
        )
        assert stuck.traceback[1] == f"SnippetNotStopped: snippet{number}.kts did not stop when interrupted and runs on"
        busy = limited.execute("keep")
        assert isinstance(busy, Error) and busy.ename == "SessionBusy", busy
        assert busy.evalue == f"the session still runs snippet{number}.kts, which did not stop when interrupted"
        assert busy.traceback[-1].startswith("This cell did not run: interrupt again to retry")
        os.kill(int(stuck.stdout.strip()), signal.SIGKILL)  # the read returns: the snippet ends
        deadline = time.monotonic() + 60  # only catches a hang: it ends as soon as the child does
        while isinstance(kept := limited.execute("keep"), Error) and time.monotonic() < deadline:
            assert kept.ename == "SessionBusy", kept
        assert isinstance(kept, Value) and kept.value == 42, kept


def test_a_bad_time_limit_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^cell_time_limit: -1 is negative; give a number of seconds, 0 or more"):
        SessionOptions(cell_time_limit=-1)


def test_complete_and_inspect_without_running() -> None:
    with ScriptSession(options=SessionOptions(echo=False)) as session:
        session.execute('val greeting = "Hello"')
        session.execute("fun greet(name: String, times: Int = 1): String = name")
        completion = session.complete("gree", 4)
        assert (completion.matches, completion.start, completion.end) == (["greet", "greeting"], 0, 4)
        assert [(item.text, item.type, item.signature) for item in completion.items] == [
            ("greet", "function", "fun greet(name: String, times: Int = 1): String"),
            ("greeting", "property", "val greeting: String"),
        ]
        assert session.complete("greeting.len", 12).matches == ["length"]
        assert session.inspect("greeting.length", 3) == (
            "val greeting: String\n\ndeclared in snippet1.kts\n\nvalue: java.lang.String = Hello"
        )
        assert session.inspect("1 + 2", 1) is None
        assert session.last_snippet_number == 2  # neither ran a snippet


def test_check_compiles_without_running_and_interrupt_from_another_thread() -> None:
    with ScriptSession(options=SessionOptions(echo=False)) as session:
        session.execute("val kept = 1")
        error = session.check('val typed: Int = "text"')
        assert isinstance(error, Error) and error.phase == "COMPILATION"
        assert error.message == (
            "snippet2.kts:1:16: error: Initializer type mismatch: expected 'Int', actual 'String'.\n"
            '  | val typed: Int <error>=</error> "text"'
        )
        assert [d.name for d in error.diagnostics] == ["INITIALIZER_TYPE_MISMATCH"]
        checked = session.check('println("not run")\nval declared = kept + 1')
        assert isinstance(checked, Value) and checked.is_unit and checked.stdout == ""
        assert session.last_snippet_number == 1
        unresolved = session.execute("declared")
        assert isinstance(unresolved, Error)
        assert unresolved.message.startswith("snippet2.kts:1:1: error: Unresolved reference 'declared'.")

        assert session.interrupt() is False, "nothing runs"


def test_interrupt_from_another_thread() -> None:
    running = threading.Event()

    def answer(prompt: str, password: bool) -> str:
        running.set()  # the snippet runs: it asked for this line
        return "go"

    with ScriptSession(options=SessionOptions(echo=False, stdin=answer)) as session:
        session.execute("val kept = 1")
        outcome: list[Value | Error] = []
        runner = threading.Thread(target=lambda: outcome.append(session.execute("readLine()\nThread.sleep(600_000)")))
        runner.start()
        assert running.wait(120)
        assert session.interrupt() is True
        runner.join(120)
        assert len(outcome) == 1 and isinstance(outcome[0], Error), outcome
        assert outcome[0].ename == "java.lang.InterruptedException"
        # in its sleep, or still in the read if the answer was not taken yet (with or without a message)
        assert outcome[0].message.startswith("java.lang.InterruptedException"), outcome[0].message
        assert "(snippet2.kts:" in outcome[0].message.split("\n")[1], outcome[0].message
        assert session.execute("kept").value == 1
