"""A cell past its time limit (:mod:`.time_limit`): what counts, and the error it gets (:mod:`.runs` checks the time
and interrupts it).

A cell's time counts from the moment the engine's session thread takes it up (not while it waits behind an earlier
cell) to its end: compiling and evaluating. Waits for something outside are left out, as the engine's clock
(``HostExecution.runMillis``) does: resolving ``@file:DependsOn`` dependencies, and reads of ``System.in`` waiting
for their answer. Past the limit the cell is interrupted as a user's interrupt does (:mod:`.interrupts`), and its
error says the limit.
"""

from __future__ import annotations

from ...config.time_limit import ENV_CELL_TIME_LIMIT, SETTING, describe
from ..errors import SNIPPET_NOT_STOPPED, TIME_LIMIT_EXCEEDED
from ..results import Error, Outcome

_HINT = (
    f"hint: split the work into shorter cells, or raise the limit (setting {SETTING}; {ENV_CELL_TIME_LIMIT} when a "
    "gateway starts the kernel)"
)


#: Where a run's time limit came from, when not from the setting: its own call.
OWN_LIMIT = "a limit of this run alone"
_OWN_HINT = "hint: split the work into shorter cells, or give this run more time"


def time_limit_outcome(outcome: Outcome, snippet_number: int, limit: float, own: bool = False) -> Outcome:
    """The outcome of a cell interrupted at its time limit (the setting's, or its ``own``): its error becomes a
    :data:`TIME_LIMIT_EXCEEDED` one, with the interrupt's report below it; a value (the code caught the interrupt and
    finished) stays."""
    if not isinstance(outcome, Error):
        return outcome
    origin = OWN_LIMIT if own else f"setting {SETTING}"
    ran = f"snippet{snippet_number}.kts ran longer than the time limit of {describe(limit)} ({origin})"
    if outcome.ename == SNIPPET_NOT_STOPPED:
        evalue = f"{ran} and did not stop when interrupted: it runs on"
    elif outcome.not_run:
        evalue = f"{ran} while it compiled and was cancelled: it did not run; the session keeps its state"
    else:
        evalue = f"{ran} and was interrupted; the session keeps its state"
    message = "\n".join([f"{TIME_LIMIT_EXCEEDED}: {evalue}", outcome.message, _OWN_HINT if own else _HINT])
    return Error(
        phase=outcome.phase,
        message=message,
        ename=TIME_LIMIT_EXCEEDED,
        evalue=evalue,
        stdout=outcome.stdout,
        stderr=outcome.stderr,
        displays=outcome.displays,
        not_run=outcome.not_run,
        snippet_number=outcome.snippet_number,
    )
