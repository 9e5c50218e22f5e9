"""The Python API for agents that do not use Jupyter::

    from kotlin_llm_kernel import ScriptSession, Value

    with ScriptSession(greeting="Hello") as session:
        session.execute('val names = mutableListOf("Alice")')
        result = session.execute('"$greeting ${names.joinToString()}"')
        if isinstance(result, Value):
            print(result.value)          # Hello Alice
        else:
            print(result.message)        # the engine's report, written for an LLM

Keyword arguments are the provided properties (``str``, ``int`` → Long, ``float`` → Double, ``bool``, ``list``,
``dict``, ``None``); a property named like a parameter of the constructor goes in the positional dict.
The JVM starts on first use, once per process; call :func:`start_jvm` first to choose its classpath or options.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .config.request import SessionRequest
from .config.time_limit import checked_limit
from .jvm.jvm import StartedJvm
from .jvm.jvm import start_jvm as _start_jvm
from .jvm.jvm_options import DEFAULT_JVM_OPTIONS, JvmRequest
from .sandbox.layout import SandboxOptions
from .session.bridge import Completion, CompletionItem, EngineSession
from .session.events import ClearOutputEvent, DisplayEvent, InputRequestEvent, OutputEvent, SettledEvent, SnippetWaiter
from .session.policy.runs import Run, Runs
from .session.results import ClearOutput, Display, Error, SnippetDisplay, Value

if TYPE_CHECKING:
    from .sandbox.api_session.client import SandboxedSession

__all__ = [
    "ClearOutput",
    "Completion",
    "CompletionItem",
    "Display",
    "Error",
    "SandboxOptions",
    "ScriptSession",
    "SessionOptions",
    "Value",
    "start_jvm",
]


def start_jvm(
    classpath: list[str] | tuple[str, ...] = (),
    jvm_options: list[str] | tuple[str, ...] = (),
    default_jvm_options: list[str] | tuple[str, ...] = DEFAULT_JVM_OPTIONS,
    java_home: str | None = None,
    max_heap: str = "",
) -> StartedJvm:
    """Starts the JVM with extra ``classpath`` entries and options (no effect once it runs); ``max_heap`` is the heap
    limit (``4g``, ``1536m``…; empty: chosen as :mod:`.heap_limit` says)."""
    return _start_jvm(
        JvmRequest(tuple(classpath), tuple(jvm_options), tuple(default_jvm_options), java_home, max_heap=max_heap)
    )


@dataclass(frozen=True)
class SessionOptions(SessionRequest):
    """A session's request (Maven resolution; properties are best given to :class:`ScriptSession`), and whether
    printed output is echoed to ``sys.stdout``/``sys.stderr`` while a snippet runs (it is always collected in
    the result's ``stdout``/``stderr``).

    ``stdin`` answers the snippets' reads of ``System.in`` (``readLine()``, ``Scanner``, …) and ``readPassword``:
    called with ``(prompt, password)`` on the thread of :meth:`ScriptSession.execute`, once per line, it returns
    the line (without its line end) or None for the end of input. None (the default): a read fails at once with
    the engine's located ``StdinNotAllowedException``.

    ``cell_time_limit`` (seconds; 0: none) interrupts a snippet that runs longer, as the kernel's setting does: its
    result is then an :class:`Error` ``TimeLimitExceeded`` saying the limit.

    ``sandbox`` runs the session in a sandbox (:class:`.SandboxOptions`: workspace, network): in a child process
    inside it, called as an in-process session is; a value that is a Java object then comes back as its text. The
    JVM's options are then the defaults (:func:`start_jvm` applies to this process's JVM only)."""

    echo: bool = True
    stdin: Callable[[str, bool], str | None] | None = None
    sandbox: SandboxOptions | None = None


class ScriptSession:
    """A stateful Kotlin session: each :meth:`execute` sees the declarations of the snippets before it."""

    def __init__(
        self, properties: Mapping[str, Any] | None = None, /, *, options: SessionOptions | None = None, **named: Any
    ) -> None:
        options = options or SessionOptions()
        self._options = dataclasses.replace(options, properties={**options.properties, **(properties or {}), **named})
        self._sandboxed: SandboxedSession | None = None
        if options.sandbox is not None:
            self._sandboxed = _sandboxed(self._options, options.sandbox)
            return
        start_jvm()
        self._engine = EngineSession(self._options)
        self._events = SnippetWaiter(self._engine)
        self._runs = Runs()

    @property
    def last_snippet_number(self) -> int:
        if self._sandboxed is not None:
            return self._sandboxed.last_snippet_number
        return self._engine.last_snippet_number

    @property
    def workspace(self) -> str | None:
        """The sandbox's workspace (its working directory, the one it may write); None without a sandbox."""
        return None if self._sandboxed is None else self._sandboxed.workspace

    def execute(
        self, code: str, *, time_limit: float | None = None, printed: Callable[[str, str], None] | None = None
    ) -> Value | Error:
        """Runs ``code`` as the next snippet and returns its :class:`Value` or :class:`Error`, with what it printed
        and what it displayed (``displays``: :class:`Display` and :class:`ClearOutput`, in order). ``time_limit``
        (seconds; 0: none) replaces the options' ``cell_time_limit`` for this snippet; ``printed`` is called with
        ``(stream, text)`` as the snippet prints, on this thread, for a caller that follows a long run.

        Ctrl-C (KeyboardInterrupt) cancels the snippet as the engine's cancellation does, stopping its thread when
        it ignores that (a loop in library code), then is re-raised; so does an exception of the ``stdin`` callable.
        While a snippet that could not be stopped runs on, the next one does not run: its result is the
        ``SessionBusy`` error.
        """
        if self._sandboxed is not None:
            return self._sandboxed.execute(code, time_limit, printed)
        if (busy := self._runs.busy()) is not None:
            return busy
        collected: dict[str, list[str]] = {"stdout": [], "stderr": []}
        stdin = self._options.stdin
        limit = self._options.cell_time_limit if time_limit is None else checked_limit(time_limit)
        run = self._runs.submit(
            lambda: self._engine.submit(code, allow_stdin=stdin is not None), limit, own=time_limit is not None
        )
        execution = run.execution

        def on_output(event: OutputEvent) -> None:
            if event.snippet_number == execution.snippet_number:
                collected.setdefault(event.stream, []).append(event.text)
                if printed is not None:
                    printed(event.stream, event.text)
            if self._options.echo:  # also what earlier snippets' coroutines printed since
                target = sys.stderr if event.stream == "stderr" else sys.stdout
                target.write(event.text)
                target.flush()

        displays: list[SnippetDisplay] = []

        def on_display(event: DisplayEvent | ClearOutputEvent) -> None:
            shown = to_display(event)
            if event.snippet_number == execution.snippet_number:
                displays.append(shown)
            if self._options.echo and isinstance(shown, Display):  # an agent reads the text of a display
                sys.stdout.write(shown.text + "\n")
                sys.stdout.flush()

        def on_input(event: InputRequestEvent) -> None:
            if stdin is not None and event.snippet_number == execution.snippet_number:
                self._engine.answer_input(event.request_id, stdin(event.prompt, event.password))

        try:
            settled = self._settled(run, on_output, on_display, on_input)
        except BaseException:
            if (interrupt := self._runs.interrupt()) is not None and self._runs.interrupt_now(interrupt) is None:
                self._events.wait(execution.snippet_number, on_output, on_display=on_display)
            self._runs.forget(run)
            raise
        stdout, stderr = "".join(collected["stdout"]), "".join(collected["stderr"])
        return dataclasses.replace(settled.outcome, stdout=stdout, stderr=stderr, displays=tuple(displays))

    def _settled(
        self,
        run: Run,
        on_output: Callable[[OutputEvent], None],
        on_display: Callable[[DisplayEvent | ClearOutputEvent], None],
        on_input: Callable[[InputRequestEvent], None],
    ) -> SettledEvent:
        """Waits for the snippet to settle, checking its time when :mod:`.runs` says (the kernel's policy)."""
        number = run.snippet_number
        while True:
            timeout = run.until_check()
            try:
                settled = self._events.wait(number, on_output, timeout, on_display=on_display, on_input=on_input)
            except TimeoutError:
                if (interrupt := self._runs.check_time(run)) is None:
                    continue
                ended = self._runs.interrupt_now(interrupt)  # None: it settled, and its own event comes
                settled = ended or self._events.wait(number, on_output, on_display=on_display)
            return self._runs.finish(run, settled).settled

    def interrupt(self) -> bool:
        """Interrupts the snippet that :meth:`execute` runs, from any other thread, as Ctrl-C in ``execute`` would
        (cancelled, then its thread stopped while it ignores that): ``execute`` returns its interrupted
        :class:`Error` and the session keeps its state. Blocks until the snippet settled or was given up on (then the
        session is busy while it runs on). False when no snippet runs."""
        if self._sandboxed is not None:
            return self._sandboxed.interrupt()
        if (interrupt := self._runs.interrupt()) is None:
            return False
        if (abandoned := self._runs.interrupt_now(interrupt)) is not None:
            self._events.end(abandoned)
        return True

    def check(self, code: str) -> Value | Error:
        """Compiles ``code`` as :meth:`execute` would compile it next, without running it: the compiler's
        :class:`Error` (the report ``execute`` would give, with its ``diagnostics``), or a Unit :class:`Value` with the
        warnings. Nothing is declared or loaded, nothing is printed, and the next snippet keeps its number. Its
        ``@file:DependsOn`` lines are resolved (fetched) but their libraries are not added."""
        if self._sandboxed is not None:
            return self._sandboxed.check(code)
        if (busy := self._runs.busy()) is not None:
            return busy
        return self._engine.check(code)

    def complete(self, code: str, cursor: int) -> Completion:
        """The completions at ``cursor`` (an index into ``code``, as Python counts a ``str``), typed by the compiler
        against the session's declarations: each of ``matches`` replaces ``code[start:end]``, and ``items`` give
        their kinds and signatures. ``code`` is not run, and the session does not change."""
        if self._sandboxed is not None:
            return self._sandboxed.complete(code, cursor)
        return self._engine.complete(code, cursor)

    def inspect(self, code: str, cursor: int) -> str | None:
        """The declaration of the name at ``cursor`` (an index into ``code``) with its resolved type, and a
        property's current value; None when there is no name there. ``code`` is not run."""
        if self._sandboxed is not None:
            return self._sandboxed.inspect(code, cursor)
        return self._engine.inspect(code, cursor)

    def close(self) -> None:
        """Cancels the coroutines launched by the snippets and releases the compiler (with a sandbox: ends its
        process and removes the sandbox)."""
        if self._sandboxed is not None:
            self._sandboxed.close()
            return
        self._engine.close()
        self._events.join(timeout=60)  # it ends as the session closes: none of its Java calls outlives the session

    def __enter__(self) -> ScriptSession:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def _sandboxed(options: SessionOptions, sandbox: SandboxOptions) -> SandboxedSession:
    """The session in a sandbox, started with the request's parts of ``options``."""
    from .sandbox.api_session.client import SandboxedSession

    request = {
        "properties": dict(options.properties),
        "local_repository": options.local_repository,
        "repositories": list(options.repositories),
        "resolution_timeout": options.resolution_timeout,
        "max_display_bytes": options.max_display_bytes,
        "cell_time_limit": options.cell_time_limit,
    }
    return SandboxedSession(sandbox, request, options.stdin, options.echo)


def to_display(event: DisplayEvent | ClearOutputEvent) -> SnippetDisplay:
    """The result's form of a display event."""
    if isinstance(event, ClearOutputEvent):
        return ClearOutput(event.wait)
    return Display(event.data, event.metadata, event.display_id, event.update)
