"""The ``kotlin-llm`` Jupyter kernel: protocol glue over the JVM engine (see shared/design.md, "What a Jupyter
client sees").

Threads: ipykernel's main thread runs the handlers as coroutines and sends every message of a cell; the engine's
own session thread runs the snippets; one daemon worker thread here makes the blocking JPype calls (waiting for a
snippet while pumping its output), so the event loop, the control channel and interrupts stay responsive.
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal
import sys
import threading
from concurrent.futures import Future
from typing import Any

from ipykernel.kernelbase import Kernel
from traitlets import Bool, Int, Unicode, observe

from . import __version__, early
from .completeness import check
from .engine import EngineSession, Execution
from .jvm import redacted, start_jvm
from .names import DeclaredNames, after_dot, complete_locally, name_at, prefix_at
from .output import OutputBudget, coalesce
from .options import EngineOptions
from .results import Error, Outcome, Value
from .worker import DaemonWorker

STARTUP_ERROR = "KernelStartupError"
_PRE_RELEASE = re.compile(r"(?i)(alpha|beta|rc|cr|m\d|eap|dev|snapshot|preview|pre)")


def _utf16_offset(text: str, index: int) -> int:
    """A Python (code point) index as a Java (UTF-16) index."""
    return len(text[:index].encode("utf-16-le")) // 2


def _code_point_offset(text: str, utf16_index: int) -> int:
    return len(text.encode("utf-16-le")[: utf16_index * 2].decode("utf-16-le", errors="ignore"))


def resolved_version_line(coordinates: str, version: str) -> str:
    kind = "pre-release" if _PRE_RELEASE.search(version) else "stable"
    return f"Resolved '{coordinates}' to its latest {kind} version '{version}'"


class KotlinKernel(Kernel, EngineOptions):
    implementation = "kotlin-llm"
    implementation_version = __version__
    language_info = {
        "name": "kotlin",
        "version": "2",
        "mimetype": "text/x-kotlin",
        "file_extension": ".kts",
        "pygments_lexer": "kotlin",
        "codemirror_mode": "text/x-kotlin",
    }

    # --- settings (c.KotlinKernel.x in a Jupyter config file, or --KotlinKernel.x=… in kernel.json argv) ---
    show_warnings = Bool(True, help="Show compiler warnings of successful cells on stderr.").tag(config=True)
    max_output_chars = Int(
        20_000_000, help="Characters of output shown per cell; the rest is cut with a notice (0: no limit)."
    ).tag(config=True)
    log_level = Unicode("WARNING", help="Level of the kernel's log (DEBUG, INFO, WARNING, ERROR).").tag(config=True)

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
        self._set_log_level(self.log_level)
        self._worker = DaemonWorker("kotlin-llm-worker")
        self._running: Execution | None = None
        self._last_parent: dict[str, Any] | None = None
        self._reply_metadata: dict[str, Any] = {}
        self._declared = DeclaredNames()
        self._declared.add_names(list(self.properties))
        self._idle_pump: threading.Thread | None = None
        #: Held while output is taken from the session: by the idle pump between cells, by a cell as it starts.
        self._output_lock = threading.Lock()
        #: Set while no cell runs (the idle pump waits on it while one does).
        self._idle = threading.Event()
        self._idle.set()
        self._stopping = False
        self._session: Future[EngineSession] = self._start()

    # --- start-up ---

    def _start(self) -> Future[EngineSession]:
        """Takes the JVM and session of the early start (:mod:`.early`) or starts them here, before any handler runs.

        Either way the session is created on a thread that is not the worker; its construction starts the
        compiler's warm-up on the engine's own session thread, so nothing here waits for the compiler.
        """
        request = self.engine_request()
        started = early.take(request)
        try:
            jvm = started.jvm.result() if started is not None else start_jvm(request.jvm)
        except Exception as error:  # noqa: BLE001 - reported to every cell
            self.log.error("the JVM could not be started: %s", error)
            failed: Future[EngineSession] = Future()
            failed.set_exception(error)
            return failed
        import jpype

        self.language_info = {**self.language_info, "version": str(jpype.JClass("kotlin.KotlinVersion").CURRENT)}
        self.log.info("kotlin-llm kernel on %s, options %s", jvm.java.describe(), redacted(jvm.options))
        if started is not None:
            self.log.info("using the session started early")
            return started.session  # type: ignore[return-value]
        self.log.info("creating the session with properties %s", sorted(request.session.properties))  # names only
        created: Future[EngineSession] = Future()
        try:
            created.set_result(request.session.create())
        except Exception as error:  # noqa: BLE001 - reported to every cell
            self.log.error("the Kotlin session could not be created: %s", error)
            created.set_exception(error)
        return created

    @property
    def kernel_info(self) -> dict[str, Any]:
        info = super().kernel_info
        info["supported_features"] = []  # no debugger, no subshells
        return info

    # --- execute ---

    def _reply_ok(self) -> dict[str, Any]:
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    def _reply_error(self, ename: str, evalue: str, traceback: list[str], silent: bool) -> dict[str, Any]:
        content = {"ename": ename, "evalue": evalue, "traceback": traceback}
        if not silent:
            self.send_response(self.iopub_socket, "error", content)
        return {"status": "error", "execution_count": self.execution_count, **content}

    def _stream(self, name: str, text: str, parent: dict[str, Any] | None = None) -> None:
        content = {"name": name, "text": text}
        if parent is None:
            self.send_response(self.iopub_socket, "stream", content)
        else:
            self.session.send(self.iopub_socket, "stream", content, parent=parent)

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
        if self._running is None:
            signal.default_int_handler(signum, frame)
        self._interrupt()

    def _interrupt(self) -> None:
        execution = self._running
        if execution is not None:
            self.log.info("interrupting snippet%s.kts", execution.snippet_number)
            execution.cancel()

    async def interrupt_request(self, stream: Any, ident: Any, parent: dict[str, Any]) -> None:
        """Message-mode interrupts (control channel): cancel the running snippet; nothing when idle."""
        self._interrupt()
        self.session.send(stream, "interrupt_reply", {"status": "ok"}, parent, ident=ident)

    async def do_execute(  # type: ignore[override]
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
        self._reply_metadata = {}
        if not code.strip():  # an empty cell is not a snippet
            return self._reply_ok()
        if silent:  # silent requests do not count, but a snippet needs a number of its own
            self.execution_count += 1
        number = self.execution_count
        try:
            session = await asyncio.wrap_future(self._session)
        except Exception as error:  # noqa: BLE001
            message = f"The Kotlin session could not be started: {error}"
            return self._reply_error(STARTUP_ERROR, message, message.split("\n"), silent)
        self._ensure_idle_pump(session, asyncio.get_running_loop())
        try:
            outcome = await self._run(session, code, number, silent)
        except Exception as error:  # noqa: BLE001 - e.g. the engine rejected the snippet number
            self.log.exception("snippet%s.kts could not be run", number)
            message = f"{type(error).__name__}: {error}"
            return self._reply_error(STARTUP_ERROR, message, message.split("\n"), silent)
        return self._finish(outcome, number, code, silent)

    async def _run(self, session: EngineSession, code: str, number: int, silent: bool) -> Outcome:
        loop = asyncio.get_running_loop()
        pending: list[tuple[str, str]] = []
        budget = OutputBudget(self.max_output_chars)

        def on_output(stream: str, text: str) -> None:  # worker thread
            loop.call_soon_threadsafe(pending.append, (stream, text))

        def flush() -> None:
            chunks = coalesce(pending)
            pending.clear()
            if silent:
                return
            for stream, text in chunks:
                if shown := budget.admit(text):
                    self._stream(stream, shown)

        with self._output_lock:  # output taken from now on is this cell's
            execution = session.submit(code, number)
            self._running = execution
            self._last_parent = self.get_parent("shell")
            self._idle.clear()
        try:
            done = asyncio.wrap_future(self._worker.submit(session.run, execution, on_output))
            while not done.done():
                await asyncio.wait({done}, timeout=0.05)
                flush()
        finally:
            self._running = None
            self._idle.set()
        outcome = done.result()
        await asyncio.sleep(0)  # outputs queued with call_soon_threadsafe before the result
        flush()
        if (notice := budget.notice()) and not silent:
            self._stream("stderr", notice)
        self._reply_metadata["interrupted"] = execution.cancelled
        return outcome

    def _finish(self, outcome: Outcome, number: int, code: str, silent: bool) -> dict[str, Any]:
        meta = self._reply_metadata
        meta["snippet"] = f"snippet{number}.kts"
        if isinstance(outcome, Error):
            meta["phase"] = outcome.phase
            if outcome.phase != "COMPILATION":
                self._declared.record(number, code)  # a snippet that threw keeps its declarations
            return self._reply_error(outcome.ename, outcome.evalue, outcome.traceback, silent)
        assert isinstance(outcome, Value)
        self._declared.record(number, code)
        meta.update(warnings=list(outcome.warnings), resolved_versions=dict(outcome.resolved_versions))
        if not silent:
            notes = [resolved_version_line(c, v) for c, v in outcome.resolved_versions.items()]
            if self.show_warnings:
                notes += outcome.warnings
            if notes:
                self._stream("stderr", "\n\n".join(n.rstrip("\n") for n in notes) + "\n")
            if not outcome.is_unit:
                content = {"execution_count": number, "data": {"text/plain": outcome.text}, "metadata": {}}
                self.send_response(self.iopub_socket, "execute_result", content)
        return self._reply_ok()

    def finish_metadata(self, parent: Any, metadata: dict[str, Any], reply_content: dict[str, Any]) -> dict[str, Any]:
        """Machine-readable extras for agents: phase, snippet name, warnings, resolved versions, interrupted."""
        metadata = super().finish_metadata(parent, metadata, reply_content)
        if self._reply_metadata:
            metadata["kotlin_llm"] = self._reply_metadata
        return metadata

    def _ensure_idle_pump(self, session: EngineSession, loop: asyncio.AbstractEventLoop) -> None:
        if self._idle_pump is None:
            self._idle_pump = threading.Thread(
                target=self._pump_while_idle, args=(session, loop), name="kotlin-llm-idle-output", daemon=True
            )
            self._idle_pump.start()

    def _pump_while_idle(self, session: EngineSession, loop: asyncio.AbstractEventLoop) -> None:
        """Output of `launch`ed coroutines printed between cells goes under the last cell, as soon as it is printed.

        Waits in the engine for output (no polling); while a cell runs, that cell forwards the output itself.
        """
        while not self._stopping:
            if not self._idle.wait(1.0) or not session.wait_for_output(1000):
                continue
            with self._output_lock:
                if self._running is not None:
                    continue
                parent = self._last_parent
                try:
                    chunks = coalesce(session.drain(0))
                except Exception:  # noqa: BLE001 - the session is closed
                    return
            loop.call_soon_threadsafe(self._forward_late, chunks, parent)

    def _forward_late(self, chunks: list[tuple[str, str]], parent: dict[str, Any] | None) -> None:
        for stream, text in chunks:
            self._stream(stream, text, parent=parent)

    # --- introspection ---

    def _ready_session(self) -> EngineSession | None:
        if self._session.done() and self._session.exception() is None:
            return self._session.result()
        return None

    async def do_is_complete(self, code: str) -> dict[str, str]:  # type: ignore[override]
        return check(code).reply()

    async def do_complete(self, code: str, cursor_pos: int | None) -> dict[str, Any]:  # type: ignore[override]
        cursor = len(code) if cursor_pos is None else cursor_pos
        matches, start, end = [], prefix_at(code, cursor)[1], cursor
        session = self._ready_session()
        if session is not None:
            java_cursor = _utf16_offset(code, cursor)
            try:
                found = await asyncio.wrap_future(self._worker.submit(session.complete, code, java_cursor))
            except Exception as error:  # noqa: BLE001
                self.log.warning("completion failed: %s", error)
                found = None
            if found is not None:
                matches = found.matches
                start, end = _code_point_offset(code, found.start), _code_point_offset(code, found.end)
        source = "engine"
        if not matches:
            source = "kernel"
            matches, start = complete_locally(code, cursor, self._declared)
            end = cursor
        metadata = {"kotlin_llm": {"source": source}}
        return {"status": "ok", "matches": matches, "cursor_start": start, "cursor_end": end, "metadata": metadata}

    async def do_inspect(  # type: ignore[override]
        self, code: str, cursor_pos: int, detail_level: int = 0, omit_sections: Any = ()
    ) -> dict[str, Any]:
        text: str | None = None
        session = self._ready_session()
        if session is not None:
            try:
                text = await asyncio.wrap_future(
                    self._worker.submit(session.inspect, code, _utf16_offset(code, cursor_pos))
                )
            except Exception as error:  # noqa: BLE001
                self.log.warning("inspection failed: %s", error)
        if text is None:
            name = name_at(code, cursor_pos)
            declaration = self._declared.get(name) if name and not after_dot(code, cursor_pos - len(name)) else None
            text = declaration.describe() if declaration else None
        if not text:
            return {"status": "ok", "found": False, "data": {}, "metadata": {}}
        return {"status": "ok", "found": True, "data": {"text/plain": text}, "metadata": {}}

    # --- shutdown ---

    async def do_shutdown(self, restart: bool) -> dict[str, Any]:  # type: ignore[override]
        self._interrupt()
        self._stopping = True
        session = self._ready_session()
        if session is not None:
            closing = threading.Thread(target=session.close, name="kotlin-llm-close", daemon=True)
            closing.start()
            closing.join(timeout=1.0)  # the process exits anyway: the JVM is not destroyed at exit
        self._worker.stop()
        return {"status": "ok", "restart": restart}
