"""The error a cell gets when code that is not its own (a library, the JDK) ends the kernel's process with
``System.exit``: the engine refuses the cells' own calls, but cannot refuse these, so the client is told first."""

from __future__ import annotations

import threading
from typing import Any

from ..session.errors import KERNEL_EXIT
from ..session.events import ProcessExitEvent
from ..session.results import Error


def exit_call(event: ProcessExitEvent) -> str:
    """``System.exit(3)``, or ``System.exit`` when the JDK does not tell the status (before JDK 21)."""
    return event.call if event.status is None else f"{event.call}({event.status})"


def exit_evalue(event: ProcessExitEvent) -> str:
    caller = f"library code at {event.library_frames[0]}" if event.library_frames else "code that is not a cell's own"
    return (
        f"{exit_call(event)} was called by {caller}, which the kernel cannot refuse: the kernel process ends now "
        "and the client restarts it; the session's state is lost"
    )


def exit_error(event: ProcessExitEvent) -> Error:
    """The error of the cell that was running: the library's frames, then the cell's, as other errors show them."""
    evalue = exit_evalue(event)
    lines = [f"{KERNEL_EXIT}: {evalue}", *(f"  at {frame}" for frame in event.library_frames)]
    if event.snippet_frames:
        lines.append(event.snippet_frames)
    return Error(phase="EVALUATION", message="\n".join(lines), ename=KERNEL_EXIT, evalue=evalue)


def exit_notice(event: ProcessExitEvent) -> str:
    """What goes on stderr under the last cell when no cell was running."""
    return f"[kotlin-llm] {exit_evalue(event)}\n"


#: Only bounds the wait for a channel's thread to send what was queued: the process ends after it anyway.
SEND_SECONDS = 2.0
#: Turns of the shell channel's loop: the first reads the reply from the main thread's pipe, the next sends it.
SHELL_TURNS = 3


def wait_until_shell_sent(shell_stream: Any, shell_channel_thread: Any) -> None:
    """Waits until the shell channel has sent the replies queued before the call (on the main thread, after the
    handler of the request ended).

    ipykernel 7 passes replies through a pipe to the thread owning the shell socket, whose loop sends them on its
    next turns; without that thread, the main thread's stream sends them itself.
    """
    if shell_channel_thread is None:
        shell_stream.flush()
        return
    done = threading.Event()

    def turn(left: int) -> None:
        shell_stream.flush()
        if left > 0:
            shell_channel_thread.io_loop.add_callback(turn, left - 1)
        else:
            done.set()

    shell_channel_thread.io_loop.add_callback(turn, SHELL_TURNS)
    done.wait(SEND_SECONDS)
