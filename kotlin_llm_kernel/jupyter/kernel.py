"""The ``kotlin-llm`` Jupyter kernel: protocol glue over the JVM engine.

Threads: ipykernel's main thread runs the handlers as coroutines on its event loop and sends every message; the
engine's own session thread runs the snippets; one reader thread blocks on the session's events and hands them
to the event loop (:mod:`.cell_output` sends the output under its cell and settles the cell); one worker thread
makes the other blocking engine calls (completion, inspection), so the loop, the control channel and interrupts
stay responsive; one thread asks the frontend for the input a cell reads (:mod:`.stdin_channel`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from ipykernel.kernelbase import Kernel
from traitlets import observe

from .. import __version__
from ..config.kernel_settings import KotlinKernel as KotlinKernelSettings
from ..config.request import EngineRequest
from ..jvm.jvm_options import redacted
from ..session import early
from ..session.bridge import Completion, EngineSession, kotlin_version
from ..session.errors import INVALID_REQUEST, KERNEL_ERROR, KERNEL_STARTUP_ERROR
from ..session.events import Event, EventReader, InputRequestEvent, ProcessExitEvent, SettledEvent
from ..session.policy.interrupts import Unstoppable
from ..session.policy.runs import Interrupt, Run, Runs
from ..session.results import Error
from ..session.surrogates import replace_lone_surrogates, surrogate_notice
from .cell_output import Cell, CellOutput, OutputBudget
from .completeness import check
from .console_exit import ask_exit_payload, exit_word
from .process_exit import exit_error, wait_until_shell_sent
from .request_checks import CHECKED_REQUESTS, CODE_REQUESTS, HISTORY_FIELDS, cursor_in, request_problem
from .stdin_channel import InputRequest, StdinChannel, iopub_flusher
from .streams import iopub_sent
from .worker import DaemonWorker

#: A request's handler as ipykernel's handler tables hold it: (stream, identities, message).
Handler = Callable[[Any, Any, dict[str, Any]], Awaitable[None]]
#: How long an exit of the process by library code waits for the client to be told (see _process_exits).
EXIT_REPORT_MILLIS = 10_000
#: The kernel's language_info; "version" becomes the engine's Kotlin version once the JVM runs.
LANGUAGE_INFO = {
    "name": "kotlin",
    "version": "2",
    "mimetype": "text/x-kotlin",
    "file_extension": ".kts",
    "pygments_lexer": "kotlin",
    "codemirror_mode": "text/x-kotlin",
}


def answered(by_type: bool, waited_ms: int, fallback: str | None) -> dict[str, Any]:
    """How a completion or inspection was answered, for its reply's ``kotlin_llm`` metadata: ``source`` "types" (the
    compiler's resolution) or "names" (the session's names, and the ``reason``), ``waited_for_compiler_ms`` when it
    was asked while the compiler started and waited for it."""
    how: dict[str, Any] = {"source": "types" if by_type else "names"}
    if waited_ms > 0:
        how["waited_for_compiler_ms"] = waited_ms
    if not by_type:
        how["reason"] = fallback or "unknown"
    return how


@dataclass(frozen=True)
class InputCell:
    """The running cell as its input requests need it: where they go, and the event that stops asking."""

    number: int
    parent: dict[str, Any]
    ident: Any
    stop: threading.Event


class KotlinKernel(Kernel, KotlinKernelSettings):
    implementation = "kotlin-llm"
    implementation_version = __version__

    @property
    def banner(self) -> str:  # type: ignore[override]
        return (
            f"Kotlin (LLM) kernel {__version__}: Kotlin {self.language_info['version']} scripts "
            "with error messages written for LLM agents"
        )

    @observe("log_level")
    def _apply_log_level(self, change: dict[str, Any]) -> None:
        self._set_log_level(change["new"])

    def _set_log_level(self, level: str) -> None:
        numeric = logging.getLevelName(level.upper())
        if isinstance(numeric, int):
            self.log.setLevel(numeric)
            logging.getLogger("kotlin_llm_kernel").setLevel(numeric)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._check_requests()
        self.language_info = dict(LANGUAGE_INFO)
        self._set_log_level(self.log_level)
        self._worker = DaemonWorker("kotlin-llm-worker")
        #: The policy of running the cells' snippets: time limit, interrupts, a session busy with one not stopped.
        self._runs = Runs(log=self.log)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reply_metadata: dict[str, Any] = {}
        self._cells = CellOutput(self._send_stream, self._send_message, self._ask_input, self._process_exits)
        #: A cell got the error saying that the process ends: once its reply is sent, the exit goes on.
        self._exit_replying = False
        self._reader: EventReader | None = None
        self._stdin: StdinChannel | None = None
        self._input_cell: InputCell | None = None
        #: The notice of lone surrogates replaced in the code of the execute_request being handled.
        self._code_notice: str | None = None
        #: The running cell's next time check (none when no limit applies).
        self._timer: asyncio.TimerHandle | None = None
        self._session: Future[EngineSession] = self._start()

    # --- start-up ---

    def _engine_request(self) -> EngineRequest:
        """The request the application loaded before ipykernel (:mod:`.kernel_config`), else these settings'."""
        loaded: EngineRequest | None = getattr(self.parent, "engine_request", None)
        return loaded if loaded is not None else self.engine_request()

    def _start(self) -> Future[EngineSession]:
        """Takes the JVM and session of the early start (:mod:`.early`) or starts them here, before any handler runs.

        Either way the session is created on a thread that is not the worker; its construction starts the
        compiler's warm-up on the engine's own session thread, so nothing here waits for the compiler.
        """
        started = early.take() or early.start_now(self._engine_request())
        properties = sorted(started.request.session.properties)  # their names only: values may be secrets
        self.log.info("the session's properties: %s", properties)
        try:
            jvm = started.jvm.result()
        except Exception as error:  # noqa: BLE001 - reported to every cell
            self.log.error("the JVM could not be started: %s", error)
            return started.session
        self.language_info = {**self.language_info, "version": kotlin_version()}
        self.log.info("kotlin-llm kernel on %s, options %s", jvm.java.describe(), redacted(jvm.options))
        if started.session.done() and (failure := started.session.exception()) is not None:
            self.log.error("the Kotlin session could not be created: %s", failure)
        return started.session

    def _read_events(self, session: EngineSession, loop: asyncio.AbstractEventLoop) -> None:
        """Starts the one reader of the session's events, which hands them to this loop."""
        if self._reader is not None:
            return

        def deliver(events: list[Event]) -> None:  # reader thread
            try:
                loop.call_soon_threadsafe(self._cells.deliver, events)
            except RuntimeError:  # the loop is closed: the kernel is shutting down
                pass

        session.report_exits(EXIT_REPORT_MILLIS)
        self._reader = EventReader(session, deliver, "kotlin-llm-events")

    @property
    def kernel_info(self) -> dict[str, Any]:
        info: dict[str, Any] = super().kernel_info
        info["supported_features"] = []  # no debugger, no subshells
        # whether a pool started this kernel before anyone asked, and a provisioner handed it to its client
        info["kotlin_llm"] = {"spare": os.environ.get(early.ENV_SPARE) == "1"}
        return info

    # --- requests: each gets a reply, whatever its content ---

    def _checked(self, stream: Any, ident: Any, parent: dict[str, Any]) -> bool:
        """Whether ipykernel may handle ``parent``; else it got an error reply naming the field that is wrong.

        Lone surrogates in its code, which no reply or output echoing it could carry, are replaced by U+FFFD here.
        """
        msg_type = parent["header"]["msg_type"]
        problem = request_problem(msg_type, parent.get("content"), parent.get("metadata"))
        if problem is None:
            content = parent["content"]
            if msg_type == "history_request":
                # fields a newer or looser client adds would be unexpected keyword arguments of do_history
                parent["content"] = {name: value for name, value in content.items() if name in HISTORY_FIELDS}
            if msg_type in CODE_REQUESTS:
                if msg_type == "execute_request":
                    self._code_notice = surrogate_notice(content["code"])
                content["code"] = replace_lone_surrogates(content["code"])
            return True
        self.log.warning("refused a %s: %s", msg_type, problem)
        evalue = f"invalid {msg_type}: {problem}"
        content = {"ename": INVALID_REQUEST, "evalue": evalue, "traceback": [f"{INVALID_REQUEST}: {evalue}"]}
        reply: dict[str, Any] = {"status": "error", **content}
        metadata: dict[str, Any] = {}
        if msg_type == "execute_request":
            reply["execution_count"] = self.execution_count
            self.send_response(self.iopub_socket, "error", content)
            iopub_flusher(self.iopub_thread)()  # the error leaves before the reply, as a cell's does (see do_execute)
            self._reply_metadata = {}
            metadata = self.finish_metadata(parent, self.init_metadata(parent), reply)
        if self.session is not None:
            reply_type = msg_type.replace("_request", "_reply")
            self.session.send(stream, reply_type, reply, parent, metadata=metadata, ident=ident)
        return False

    def _check_requests(self) -> None:
        """Puts :meth:`_checked` before the handler of every request type it checks, on the shell channel and on the
        control channel (which accepts the shell's requests too)."""
        for handlers in (self.shell_handlers, self.control_handlers):
            for msg_type in CHECKED_REQUESTS:
                handlers[msg_type] = self._checking(handlers[msg_type])

    def _checking(self, handler: Handler) -> Handler:
        """``handler``, run only when :meth:`_checked` lets its request through."""

        async def checked(stream: Any, ident: Any, parent: dict[str, Any]) -> None:
            if self._checked(stream, ident, parent):
                await handler(stream, ident, parent)

        return checked

    async def execute_request(self, stream: Any, ident: Any, parent: dict[str, Any]) -> None:
        await super().execute_request(stream, ident, parent)
        if self._exit_replying:
            # after ipykernel's dispatch_shell, which publishes the idle status once this handler returns
            asyncio.get_running_loop().call_soon(self._let_exit_go_on)

    # --- execute ---

    def _reply_ok(self) -> dict[str, Any]:
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    def _reply_error(self, ename: str, evalue: str, traceback: list[str], silent: bool) -> dict[str, Any]:
        content = {"ename": ename, "evalue": evalue, "traceback": traceback}
        if not silent:
            self.send_response(self.iopub_socket, "error", content)
        return {"status": "error", "execution_count": self.execution_count, **content}

    def _send_stream(self, name: str, text: str, parent: dict[str, Any] | None = None) -> None:
        content = {"name": name, "text": text}
        if parent is None:
            self.send_response(self.iopub_socket, "stream", content)
        elif self.session is not None:
            self.session.send(self.iopub_socket, "stream", content, parent=parent)

    def _send_message(self, msg_type: str, content: dict[str, Any], parent: dict[str, Any] | None) -> None:
        """A rich output (display_data, update_display_data, clear_output) under ``parent`` (None: the current)."""
        if parent is None:
            self.send_response(self.iopub_socket, msg_type, content)
        elif self.session is not None:
            self.session.send(self.iopub_socket, msg_type, content, parent=parent)

    def set_parent(self, ident: Any, parent: dict[str, Any], channel: str = "shell") -> None:
        """Output written to the process's file descriptors (child processes, the JVM itself) goes under the cell
        being run: ipykernel's streams carry it, and only IPython's shell would otherwise tell them the parent."""
        super().set_parent(ident, parent, channel)
        if channel == "shell":
            for stream in (sys.stdout, sys.stderr):
                if hasattr(stream, "set_parent"):
                    stream.set_parent(parent)

    def pre_handler_hook(self) -> None:
        """While a message is handled, SIGINT (signal-mode interrupts) cancels the running cell, if any.

        ipykernel installs ``default_int_handler`` here for each shell message; installing this handler instead
        (once per message, not once more per cell) keeps a KeyboardInterrupt for everything but a running cell.
        """
        self.saved_sigint_handler = signal.signal(signal.SIGINT, self._on_sigint)

    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self._runs.running is None:
            signal.default_int_handler(signum, frame)
        self._interrupt()

    def _interrupt(self) -> None:
        """A user's interrupt (or the shutdown's): the running snippet's time limit no longer applies to it."""
        self._stop_timer()
        self._stop_asking_input()
        self._carry_out(self._runs.interrupt())

    def _stop_asking_input(self) -> None:
        if (waiting := self._input_cell) is not None:
            waiting.stop.set()

    def _carry_out(self, interrupt: Interrupt | None) -> None:
        """Off the event loop, stops the snippet's thread while it ignores its cancellation; the report comes back to
        the loop (:meth:`_interrupted`)."""
        loop = self._loop
        if interrupt is None or loop is None:
            return

        def report(unstoppable: Unstoppable | None) -> None:  # the interrupt's thread
            try:
                loop.call_soon_threadsafe(self._interrupted, interrupt, unstoppable)
            except RuntimeError:  # the loop is closed: the kernel is shutting down
                pass

        interrupt.start(report)

    def _schedule_time_check(self, run: Run) -> None:
        if (delay := run.until_check()) is not None and self._loop is not None:
            self._timer = self._loop.call_later(delay, self._check_time, run)

    def _check_time(self, run: Run) -> None:
        """The running cell's time check: at its limit it is interrupted as by the user, and its error will say so."""
        self._timer = None
        if (interrupt := self._runs.check_time(run)) is not None:
            self._stop_asking_input()
            self._carry_out(interrupt)
        elif self._runs.running is run:
            self._schedule_time_check(run)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _interrupted(self, interrupt: Interrupt, report: Unstoppable | None) -> None:
        """The interrupt was carried out: a snippet still running ends its cell now."""
        if (abandoned := self._runs.interrupted(interrupt, report)) is not None:
            self._cells.abandon(abandoned)

    async def interrupt_request(self, stream: Any, ident: Any, parent: dict[str, Any]) -> None:
        """Message-mode interrupts (control channel): cancel the running snippet; nothing when idle."""
        self._interrupt()
        if self.session is not None:
            self.session.send(stream, "interrupt_reply", {"status": "ok"}, parent, ident=ident)

    async def do_execute(
        self,
        code: str,
        silent: bool,
        store_history: bool = True,
        user_expressions: dict[str, Any] | None = None,
        allow_stdin: bool = False,
        *,
        cell_meta: dict[str, Any] | None = None,
        cell_id: str | None = None,
    ) -> dict[str, Any]:
        reply = await self._execute(code, silent, allow_stdin)
        # the cell's messages leave on iopub before ipykernel sends this reply on shell
        await iopub_sent(self.iopub_thread)
        return reply

    async def _execute(self, code: str, silent: bool, allow_stdin: bool) -> dict[str, Any]:
        self._reply_metadata = {}
        code_notice, self._code_notice = self._code_notice, None
        if code_notice and not silent:
            self._send_stream("stderr", code_notice)
        if not code.strip():  # an empty cell is not a snippet
            return self._reply_ok()
        if (word := exit_word(code)) is not None and not await self._declares(word):
            return {**self._reply_ok(), "payload": [ask_exit_payload()]}  # nothing runs: the console ends
        if silent:  # silent requests do not count, but a snippet needs a number of its own
            self.execution_count += 1
        number = self.execution_count
        if (busy := self._runs.busy()) is not None:
            return self._reply_error(busy.ename, busy.evalue, busy.traceback, silent)
        try:
            session = await asyncio.wrap_future(self._session)
        except Exception as error:  # noqa: BLE001 - whatever stopped the start is the cell's error
            message = f"The Kotlin session could not be started: {error}"
            return self._reply_error(KERNEL_STARTUP_ERROR, message, message.split("\n"), silent)
        try:
            settled, budget = await self._run(session, code, number, silent, allow_stdin)
        except Exception as error:
            self.log.exception("snippet%s.kts could not be run", number)
            message = f"snippet{number}.kts could not be run: {type(error).__name__}: {error}"
            return self._reply_error(KERNEL_ERROR, message, message.split("\n"), silent)
        return self._finish(settled, budget, number, silent)

    async def _declares(self, name: str) -> bool:
        """Whether the session's snippets declared ``name`` (a ``val exit``, a ``fun quit()``): its own wins over
        ending the console. A session that did not start declared nothing."""
        session = await self._started_session()
        if session is None:
            return False
        try:
            return await asyncio.wrap_future(self._worker.submit(session.inspect, name, 0)) is not None
        except Exception as error:  # noqa: BLE001 - the engine could not tell: the console's meaning wins
            self.log.warning("could not look up %s: %s", name, error)
            return False

    async def _run(
        self, session: EngineSession, code: str, number: int, silent: bool, allow_stdin: bool = False
    ) -> tuple[SettledEvent, OutputBudget]:
        """Submits the snippet and waits until it settled, all its output sent (:class:`.cell_output.CellOutput`);
        the budget its output left is its value's."""
        loop = self._loop = asyncio.get_running_loop()
        self._read_events(session, loop)
        cell = Cell(number, self.get_parent("shell"), silent, OutputBudget(self.max_output_chars), loop.create_future())
        self._cells.open(cell)
        # the frontend's identity, for routing input requests: read here, in the handler's own context
        ident = self._get_shell_context_var(self._shell_parent_ident)
        self._input_cell = InputCell(number, cell.parent or {}, ident, threading.Event())
        try:
            run = self._runs.submit(
                lambda: session.submit(code, number, allow_stdin=allow_stdin),
                self._engine_request().session.cell_time_limit,
            )
        except Exception:
            self._cells.discard(number)
            raise
        self._schedule_time_check(run)
        try:
            settled = await cell.settled
        except BaseException:
            self._runs.forget(run)
            raise
        finally:
            self._stop_timer()
            self._input_cell.stop.set()  # a request still asked is dropped: the engine failed its read
            self._input_cell = None
        ended = self._runs.finish(run, settled)
        settled = ended.settled
        self._reply_metadata["interrupted"] = settled.cancelled
        self._reply_metadata["time_limit_exceeded"] = ended.time_limit_exceeded
        self._reply_metadata["outputs"] = cell.outputs  # the execute_result joins it in _finish
        return settled, cell.budget

    # --- library code ending the process ---

    def _process_exits(self, event: ProcessExitEvent, replying: bool) -> None:
        """Library code called ``System.exit``: the JVM's shutdown hook waits (see ``EngineSession.report_exits``)
        while the cell that was running gets its error, reply and idle status; else the exit goes on at once."""
        self.log.error("%s", exit_error(event).message)  # the kernel's log: the engine leaves it to the host told
        if replying:
            self._exit_replying = True
        else:
            self._let_exit_go_on()

    def _let_exit_go_on(self) -> None:
        """Once the threads sending on iopub and shell sent what was queued, the JVM may end the process."""
        iopub_flusher(self.iopub_thread)()
        wait_until_shell_sent(self.shell_stream, getattr(self, "shell_channel_thread", None))
        self._session.result().exit_reported()

    def _ask_input(self, event: InputRequestEvent) -> None:
        """Hands the request for the line ``event`` waits for to the stdin channel, whose thread asks the running
        cell's frontend; on the event loop."""
        session = self._session.result()  # it asked: it runs
        cell = self._input_cell
        if cell is None or cell.number != event.snippet_number or cell.stop.is_set():
            # not the running cell's: the engine fails that read when its snippet settles
            self.log.warning("dropped the input request of snippet%s.kts", event.snippet_number)
            return
        if self._stdin is None:
            self._stdin = StdinChannel(self.session, self.stdin_socket, iopub_flusher(self.iopub_thread))
        request_id = event.request_id
        self._stdin.ask(
            InputRequest(
                event.prompt,
                event.password,
                cell.parent,
                cell.ident,
                cell.stop,
                lambda value: session.answer_input(request_id, value),
            )
        )

    def _finish(self, settled: SettledEvent, budget: OutputBudget, number: int, silent: bool) -> dict[str, Any]:
        outcome = settled.outcome
        meta = self._reply_metadata
        meta["snippet"] = f"snippet{number}.kts"
        data: dict[str, Any] = {}
        if not isinstance(outcome, Error) and not outcome.is_unit and not silent:
            data = dict(outcome.data or {"text/plain": outcome.text})
            if isinstance(text := data.get("text/plain"), str):  # the value's text is output, as printed text is
                data["text/plain"] = budget.admit(text)
        if (notice := budget.notice()) and not silent:
            self._send_stream("stderr", notice)
        meta["diagnostics"] = [diagnostic.as_json() for diagnostic in outcome.diagnostics]
        if isinstance(outcome, Error):
            meta["phase"] = outcome.phase
            return self._reply_error(outcome.ename, outcome.evalue, outcome.traceback, silent)
        meta.update(warnings=list(outcome.warnings), resolved_versions=dict(outcome.resolved_versions))
        if not silent:
            # the versions chosen, one line each (a library's artifacts read as one block), then each warning
            notes = ["\n".join(dependency.describe() for dependency in outcome.resolved)] if outcome.resolved else []
            if self.show_warnings:
                notes += outcome.warnings
            if notes:
                self._send_stream("stderr", "\n\n".join(n.rstrip("\n") for n in notes) + "\n")
            if not outcome.is_unit:
                content = {"execution_count": number, "data": data, "metadata": outcome.metadata}
                self.send_response(self.iopub_socket, "execute_result", content)
                meta.setdefault("outputs", []).append({"output_type": "execute_result", "mime_types": list(data)})
        return self._reply_ok()

    def finish_metadata(self, parent: Any, metadata: dict[str, Any], reply_content: dict[str, Any]) -> dict[str, Any]:
        """Machine-readable extras for agents: phase, snippet name, warnings, resolved versions, interrupted, and
        the rich outputs in order (output_type, mime_types, display_id)."""
        metadata = super().finish_metadata(parent, metadata, reply_content)
        if self._reply_metadata:
            metadata["kotlin_llm"] = self._reply_metadata
        return metadata

    # --- introspection: the engine answers from the session's construction on ---

    async def _started_session(self) -> EngineSession | None:
        """The session once constructed; None when it could not be started (then nothing is found)."""
        try:
            return await asyncio.wrap_future(self._session)
        except Exception:  # noqa: BLE001 - reported by every cell
            return None

    async def do_is_complete(self, code: str) -> dict[str, str]:
        return check(code).reply()

    async def do_complete(self, code: str, cursor_pos: int | None) -> dict[str, Any]:
        cursor = cursor_in(code, cursor_pos)
        found = Completion([], cursor, cursor)
        how: dict[str, Any] = {"source": "kernel", "reason": "the Kotlin session could not be started"}
        session = await self._started_session()
        if session is not None:
            try:
                found = await asyncio.wrap_future(self._worker.submit(session.complete, code, cursor))
                how = answered(found.by_type, found.waited_ms, found.fallback)
            except Exception as error:  # noqa: BLE001 - a failed completion completes nothing
                self.log.warning("completion failed: %s", error)
                how["reason"] = f"the completion failed: {error}"
        metadata: dict[str, Any] = {"kotlin_llm": how}
        if found.items:
            # JupyterLab shows each match's type and signature from this (IPython's name for it)
            metadata["_jupyter_types_experimental"] = [
                {"start": found.start, "end": found.end, "text": i.text, "type": i.type, "signature": i.signature}
                for i in found.items
            ]
        return {
            "status": "ok",
            "matches": found.matches,
            "cursor_start": found.start,
            "cursor_end": found.end,
            "metadata": metadata,
        }

    async def do_inspect(
        self, code: str, cursor_pos: int | None, detail_level: int = 0, omit_sections: Any = ()
    ) -> dict[str, Any]:
        text: str | None = None
        how: dict[str, Any] = {"source": "kernel", "reason": "the Kotlin session could not be started"}
        session = await self._started_session()
        if session is not None:
            try:
                cursor = cursor_in(code, cursor_pos)
                found = await asyncio.wrap_future(self._worker.submit(session.inspection, code, cursor))
                text = found.text
                how = answered(found.by_type, found.waited_ms, found.fallback)
            except Exception as error:  # noqa: BLE001 - a failed inspection finds nothing
                self.log.warning("inspection failed: %s", error)
                how["reason"] = f"the inspection failed: {error}"
        metadata = {"kotlin_llm": how}
        if not text:
            return {"status": "ok", "found": False, "data": {}, "metadata": metadata}
        return {"status": "ok", "found": True, "data": {"text/plain": text}, "metadata": metadata}

    # --- shutdown ---

    async def do_shutdown(self, restart: bool) -> dict[str, Any]:
        self._interrupt()
        if self._session.done() and self._session.exception() is None:
            closing = threading.Thread(target=self._session.result().close, name="kotlin-llm-close", daemon=True)
            closing.start()
            closing.join(timeout=1.0)  # the process exits anyway: the JVM is not destroyed at exit
        self._worker.stop()
        return {"status": "ok", "restart": restart}
