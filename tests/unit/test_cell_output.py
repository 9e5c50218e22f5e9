"""Which cell each of a session's events goes under (kotlin_llm_kernel.jupyter.cell_output), on an event loop, no
kernel."""

from __future__ import annotations

import asyncio
from typing import Any

from kotlin_llm_kernel.jupyter.cell_output import Cell, CellOutput, OutputBudget
from kotlin_llm_kernel.session.events import (
    ClearOutputEvent,
    DisplayEvent,
    InputRequestEvent,
    OutputEvent,
    ProcessExitEvent,
    SettledEvent,
)
from kotlin_llm_kernel.session.results import Error, Value

Sent = list[tuple[str, str, Any]]


def parent(msg_id: str) -> dict[str, Any]:
    return {"msg_id": msg_id}


def settled(number: int) -> SettledEvent:
    return SettledEvent(number, Value(value=None, text="kotlin.Unit", is_unit=True), cancelled=False)


async def open_cell(output: CellOutput, number: int, *, silent: bool = False, limit: int = 0) -> Cell:
    cell = Cell(
        number, parent(f"cell{number}"), silent, OutputBudget(limit), asyncio.get_running_loop().create_future()
    )
    output.open(cell)
    return cell


def run(scenario: Any) -> Sent:
    sent: Sent = []
    output = CellOutput(lambda stream, text, under: sent.append((stream, text, under)))
    asyncio.run(scenario(output))
    return sent


def test_a_cells_output_is_coalesced_and_sent_under_it_before_it_settles() -> None:
    async def scenario(output: CellOutput) -> None:
        cell = await open_cell(output, 1)
        output.deliver([OutputEvent(1, "stdout", "a"), OutputEvent(1, "stdout", "b"), OutputEvent(1, "stderr", "!")])
        assert not cell.settled.done()
        output.deliver([settled(1)])
        assert cell.settled.done() and cell.settled.result().snippet_number == 1

    assert run(scenario) == [("stdout", "ab", parent("cell1")), ("stderr", "!", parent("cell1"))]


def test_output_before_the_settled_event_of_the_same_batch_is_sent_first() -> None:
    order: list[str] = []

    async def scenario(output: CellOutput) -> None:
        cell = await open_cell(output, 2)
        cell.settled.add_done_callback(lambda _: order.append("settled"))
        output.deliver([OutputEvent(2, "stdout", "last words\n"), settled(2)])
        await asyncio.sleep(0)  # lets the done callback run

    sent = run(scenario)
    assert sent == [("stdout", "last words\n", parent("cell2"))]
    assert order == ["settled"]


def test_output_printed_after_a_cell_settled_goes_under_that_cell_and_is_not_cut() -> None:
    async def scenario(output: CellOutput) -> None:
        await open_cell(output, 3, limit=2)
        output.deliver([settled(3)])
        output.deliver([OutputEvent(3, "stdout", "late output")])

    assert run(scenario) == [("stdout", "late output", parent("cell3"))]


def test_output_of_an_earlier_snippet_printed_while_a_cell_runs_goes_under_the_last_cell() -> None:
    async def scenario(output: CellOutput) -> None:
        await open_cell(output, 4)
        output.deliver([settled(4)])
        await open_cell(output, 5)
        output.deliver([OutputEvent(1, "stdout", "from a launched coroutine")])

    assert run(scenario) == [("stdout", "from a launched coroutine", parent("cell5"))]


def test_a_silent_cell_shows_nothing_and_a_budget_cuts_the_rest() -> None:
    async def scenario(output: CellOutput) -> None:
        await open_cell(output, 6, silent=True)
        await open_cell(output, 7, limit=4)
        output.deliver([OutputEvent(6, "stdout", "hidden"), OutputEvent(7, "stdout", "abcdef")])

    assert run(scenario) == [("stdout", "abcd", parent("cell7"))]


def test_a_discarded_cell_takes_no_output_of_its_own() -> None:
    async def scenario(output: CellOutput) -> None:
        await open_cell(output, 8)
        output.discard(8)
        output.deliver([OutputEvent(8, "stdout", "x")])

    assert run(scenario) == [("stdout", "x", parent("cell8"))]


# --- rich output ---


def test_displays_go_under_their_cell_after_its_pending_output_and_are_listed_for_the_reply() -> None:
    messages: Sent = []
    cells: list[Cell] = []

    async def scenario(output: CellOutput) -> None:
        cell = await open_cell(output, 3)
        cells.append(cell)
        output.deliver(
            [
                OutputEvent(3, "stdout", "first\n"),
                DisplayEvent(3, {"text/plain": "x", "text/html": "<b>x</b>"}, {}, None, False),
                DisplayEvent(3, {"text/plain": "y"}, {}, "d", True),
                ClearOutputEvent(3, True),
                settled(3),
            ]
        )

    def send(stream: str, text: str, under: Any) -> None:
        messages.append((stream, text, under))

    def send_message(msg_type: str, content: dict[str, Any], under: Any) -> None:
        messages.append((msg_type, content, under))

    asyncio.run(scenario(CellOutput(send, send_message)))
    assert messages == [
        ("stdout", "first\n", parent("cell3")),
        ("display_data", {"data": {"text/plain": "x", "text/html": "<b>x</b>"}, "metadata": {}}, parent("cell3")),
        (
            "update_display_data",
            {"data": {"text/plain": "y"}, "metadata": {}, "transient": {"display_id": "d"}},
            parent("cell3"),
        ),
        ("clear_output", {"wait": True}, parent("cell3")),
    ]
    assert cells[0].outputs == [
        {"output_type": "display_data", "mime_types": ["text/plain", "text/html"]},
        {"output_type": "update_display_data", "mime_types": ["text/plain"], "display_id": "d"},
        {"output_type": "clear_output", "wait": True},
    ]


def test_an_input_request_is_asked_after_the_output_printed_before_it() -> None:
    sent: Sent = []

    async def scenario(output: CellOutput) -> None:
        await open_cell(output, 9)
        output.deliver(
            [OutputEvent(9, "stdout", "Name: "), InputRequestEvent(9, 1, "", False), OutputEvent(9, "stdout", "after")]
        )

    def ask(event: InputRequestEvent) -> None:
        sent.append(("input", event.prompt, event.request_id))

    asyncio.run(scenario(CellOutput(lambda stream, text, under: sent.append((stream, text, under)), None, ask)))
    assert sent == [("stdout", "Name: ", parent("cell9")), ("input", "", 1), ("stdout", "after", parent("cell9"))]


EVALUE = (
    "System.exit(3) was called by library code at lib.Tool.quit(Tool.java:7), which the kernel cannot refuse: the "
    "kernel process ends now and the client restarts it; the session's state is lost"
)


def process_exit(number: int, running: bool) -> ProcessExitEvent:
    frames = "  at <snippet body>(snippet4.kts:1)\n  | Tool.quit(3)"
    return ProcessExitEvent(number, running, "System.exit", 3, ("lib.Tool.quit(Tool.java:7)",), frames)


def test_an_exit_by_library_code_settles_the_running_cell_with_the_error_saying_so() -> None:
    told: list[tuple[ProcessExitEvent, bool]] = []

    async def scenario(output: CellOutput) -> None:
        cell = await open_cell(output, 4)
        output.deliver([OutputEvent(4, "stdout", "before\n"), process_exit(4, running=True)])
        error = cell.settled.result().outcome
        assert isinstance(error, Error)
        assert (error.ename, error.evalue) == ("KernelExit", EVALUE)
        assert error.traceback == [
            f"KernelExit: {EVALUE}",
            "  at lib.Tool.quit(Tool.java:7)",
            "  at <snippet body>(snippet4.kts:1)",
            "  | Tool.quit(3)",
        ]

    sent: Sent = []
    output = CellOutput(
        lambda stream, text, under: sent.append((stream, text, under)), None, None, lambda *a: told.append(a)
    )
    asyncio.run(scenario(output))
    assert sent == [("stdout", "before\n", parent("cell4"))]
    assert told == [(process_exit(4, running=True), True)]


def test_an_exit_by_library_code_between_cells_is_a_notice_under_the_last_cell() -> None:
    told: list[tuple[ProcessExitEvent, bool]] = []

    async def scenario(output: CellOutput) -> None:
        await open_cell(output, 5)
        output.deliver([settled(5), process_exit(5, running=False)])

    sent: Sent = []
    output = CellOutput(
        lambda stream, text, under: sent.append((stream, text, under)), None, None, lambda *a: told.append(a)
    )
    asyncio.run(scenario(output))
    assert sent == [("stderr", f"[kotlin-llm] {EVALUE}\n", parent("cell5"))]
    assert told == [(process_exit(5, running=False), False)]
