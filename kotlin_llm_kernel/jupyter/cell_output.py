"""Which cell each of a session's events belongs to, on the kernel's event loop.

Output goes under the cell that was running when it was printed (the engine tags it with the snippet number);
output printed between cells goes under the last cell. A running cell's output is coalesced into few stream
messages (:func:`coalesce`) and cut visibly past its budget (:class:`OutputBudget`); a cell's settled future is
resolved after all of its output was sent.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..session.events import (
    ClearOutputEvent,
    DisplayEvent,
    Event,
    InputRequestEvent,
    OutputEvent,
    ProcessExitEvent,
    SettledEvent,
)
from .process_exit import exit_error, exit_notice

#: Sends one stream message (stream name, text) under a parent header (None: the current one).
StreamSender = Callable[[str, str, "dict[str, Any] | None"], None]
#: Sends one message (msg_type, content) on iopub under a parent header (None: the current one).
MessageSender = Callable[[str, "dict[str, Any]", "dict[str, Any] | None"], None]
#: Asks the frontend for the line an input request waits for.
InputAsker = Callable[[InputRequestEvent], None]
#: Told that the process ends, and whether a cell was settled with the error saying so (its reply is on its way).
ExitListener = Callable[[ProcessExitEvent, bool], None]


def coalesce(chunks: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Adjacent chunks of the same stream joined, order kept."""
    merged: list[tuple[str, str]] = []
    for stream, text in chunks:
        if not text:
            continue
        if merged and merged[-1][0] == stream:
            merged[-1] = (stream, merged[-1][1] + text)
        else:
            merged.append((stream, text))
    return merged


@dataclass
class OutputBudget:
    """At most ``limit`` characters of a cell's output are shown; the rest is counted and reported."""

    limit: int
    shown: int = 0
    cut_chars: int = 0
    cut_lines: int = 0

    def admit(self, text: str) -> str:
        """The part of ``text`` that is still within the limit."""
        room = max(self.limit - self.shown, 0) if self.limit > 0 else len(text)
        if len(text) <= room:
            self.shown += len(text)
            return text
        kept, dropped = text[:room], text[room:]
        self.shown += len(kept)
        self.cut_chars += len(dropped)
        self.cut_lines += dropped.count("\n")
        return kept

    def notice(self) -> str | None:
        """The line telling what was cut, or None when nothing was."""
        if not self.cut_chars:
            return None
        return (
            f"\n[kotlin-llm] output cut: the last {self.cut_chars:,} characters ({self.cut_lines:,} lines) of this "
            f"cell were not shown, past the limit of {self.limit:,} characters (KotlinKernel.max_output_chars).\n"
        )


@dataclass
class Cell:
    """A running cell: the snippet it submitted, the request it answers, and what it is still owed."""

    number: int
    parent: dict[str, Any] | None
    silent: bool
    budget: OutputBudget
    settled: asyncio.Future[SettledEvent]
    #: The rich outputs sent for it, in order, for the reply metadata: output_type, mime_types, display_id.
    outputs: list[dict[str, Any]] = field(default_factory=list)


class CellOutput:
    """The cells that wait for their snippets, and where output goes; used on the event loop's thread only."""

    def __init__(
        self,
        send: StreamSender,
        send_message: MessageSender | None = None,
        ask_input: InputAsker | None = None,
        on_exit: ExitListener | None = None,
    ) -> None:
        self._send = send
        self._send_message = send_message
        self._ask_input = ask_input
        self._on_exit = on_exit
        self._running: dict[int, Cell] = {}
        self._last: Cell | None = None
        self._last_settled: Cell | None = None

    def open(self, cell: Cell) -> None:
        """``cell`` is about to submit its snippet: output tagged with its number is its own from now on."""
        self._running[cell.number] = cell
        self._last = cell

    def discard(self, number: int) -> None:
        """The snippet was never submitted."""
        self._running.pop(number, None)

    def abandon(self, event: SettledEvent) -> None:
        """Settles the cell of ``event`` now, while its snippet goes on; what the snippet prints and its own
        settling later are treated as a settled cell's."""
        if (cell := self._running.pop(event.snippet_number, None)) is not None:
            self._last_settled = cell
            if not cell.settled.done():
                cell.settled.set_result(event)

    def deliver(self, events: list[Event]) -> None:
        """Sends the output of ``events`` under its cells, asks for input and settles the cells, in order."""
        pending: list[OutputEvent] = []
        for event in events:
            if isinstance(event, OutputEvent):
                pending.append(event)
                continue
            self._send_output(pending)
            pending = []
            if isinstance(event, InputRequestEvent):  # asked once the output printed before it was sent
                if self._ask_input is not None:
                    self._ask_input(event)
                continue
            if isinstance(event, DisplayEvent | ClearOutputEvent):
                self._send_display(event)
                continue
            if isinstance(event, ProcessExitEvent):
                self._process_exits(event)
                continue
            cell = self._running.pop(event.snippet_number, None)
            if cell is not None:
                self._last_settled = cell
                if not cell.settled.done():
                    cell.settled.set_result(event)
        self._send_output(pending)

    def _process_exits(self, event: ProcessExitEvent) -> None:
        """The running cell settles with the error saying that the process ends; with none running, the last cell
        gets it as a notice on stderr."""
        cell = self._running.pop(event.snippet_number, None) if event.running else None
        replying = cell is not None and not cell.settled.done()
        if cell is not None and replying:
            cell.settled.set_result(SettledEvent(event.snippet_number, exit_error(event), cancelled=False))
        elif self._last is not None:
            self._send("stderr", exit_notice(event), self._last.parent)
        if self._on_exit is not None:
            self._on_exit(event, replying)

    def _send_output(self, events: list[OutputEvent]) -> None:
        for number, of_one_snippet in itertools.groupby(events, key=lambda event: event.snippet_number):
            self._send_cell_output(number, list(of_one_snippet))

    def _send_cell_output(self, number: int, events: list[OutputEvent]) -> None:
        chunks = coalesce((e.stream, e.text) for e in events)
        running = self._running.get(number)
        if running is None:  # printed after its cell settled, or between cells: not cut, as nothing waits for it
            parent = self._parent_of_settled(number)
            for stream, text in chunks:
                self._send(stream, text, parent)
            return
        if running.silent:
            return
        for stream, text in chunks:
            if shown := running.budget.admit(text):
                self._send(stream, shown, running.parent)

    def _parent_of_settled(self, number: int) -> dict[str, Any] | None:
        """Where output of snippet ``number`` goes once its cell settled: under that cell if it was the last to
        settle, else (printed between cells, or by an older snippet's coroutine) under the last cell."""
        last_settled = self._last_settled
        owner = last_settled if last_settled is not None and last_settled.number == number else self._last
        return owner.parent if owner is not None else None

    def _send_display(self, event: DisplayEvent | ClearOutputEvent) -> None:
        """Sends a display, an update or a clearing under its cell, after the output printed before it."""
        if self._send_message is None:
            return
        running = self._running.get(event.snippet_number)
        if running is not None and running.silent:
            return
        # sent by a coroutine after its cell settled: under the cell, as its output is
        parent = self._parent_of_settled(event.snippet_number) if running is None else running.parent
        msg_type, content, summary = display_message(event)
        self._send_message(msg_type, content, parent)
        if running is not None:
            running.outputs.append(summary)


def display_message(event: DisplayEvent | ClearOutputEvent) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The iopub message (msg_type, content) of ``event`` and its entry in the reply metadata's ``outputs``."""
    if isinstance(event, ClearOutputEvent):
        return "clear_output", {"wait": event.wait}, {"output_type": "clear_output", "wait": event.wait}
    msg_type = "update_display_data" if event.update else "display_data"
    content: dict[str, Any] = {"data": event.data, "metadata": event.metadata}
    summary: dict[str, Any] = {"output_type": msg_type, "mime_types": list(event.data)}
    if event.display_id is not None:
        content["transient"] = {"display_id": event.display_id}
        summary["display_id"] = event.display_id
    return msg_type, content, summary
