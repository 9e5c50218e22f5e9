"""Starting the JVM and the engine session at the very beginning of the kernel process.

``python -m kotlin_llm_kernel`` loads the kernel's configuration (:mod:`.kernel_config`) and calls :func:`begin`
before it imports ipykernel: a daemon thread starts the JVM and creates the session, whose construction starts
compiling the engine's warm-up snippet on its own session thread. Meanwhile the main thread imports ipykernel and
sets up the sockets, so the compiler's start overlaps them. The kernel then takes the started session with
:func:`take`.

The JVM starts with ``-Xrs`` (see :mod:`.jvm_options`), so it installs no signal handler whichever thread starts
it; ipykernel sets its own SIGINT disposition afterwards. ``KOTLIN_LLM_EARLY_START=0`` turns this off.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config.request import EngineRequest

if TYPE_CHECKING:
    from ..jvm.jvm import StartedJvm
    from .bridge import EngineSession

ENV_EARLY_START = "KOTLIN_LLM_EARLY_START"
#: Set to 1 in a warm spare's environment by the pool that starts it (:mod:`kotlin_llm_kernel.spares`): the engine
#: compiles an unnumbered warm-up snippet when its session starts, and kernel_info says the kernel was a spare.
ENV_SPARE = "KOTLIN_LLM_SPARE"


@dataclass(frozen=True)
class EarlyStart:
    request: EngineRequest
    #: The started JVM, or why not.
    jvm: Future[StartedJvm]
    #: The session, or why not.
    session: Future[EngineSession]


_early: EarlyStart | None = None


def enabled() -> bool:
    return os.environ.get(ENV_EARLY_START, "1").strip().lower() not in ("0", "false", "off", "no")


def _start(early: EarlyStart) -> None:
    from ..jvm.jvm import start_jvm
    from .bridge import EngineSession

    try:
        early.jvm.set_result(start_jvm(early.request.jvm))
    except BaseException as error:  # noqa: BLE001 - the kernel reports it to every cell
        early.jvm.set_exception(error)
        early.session.set_exception(error)
        return
    try:
        early.session.set_result(EngineSession(early.request.session))
    except BaseException as error:  # noqa: BLE001 - the kernel reports it to every cell
        early.session.set_exception(error)


def begin(request: EngineRequest) -> None:
    """Starts the JVM and the session for ``request`` on a daemon thread."""
    global _early
    _early = EarlyStart(request, Future(), Future())
    threading.Thread(target=_start, args=(_early,), name="kotlin-llm-early-start", daemon=True).start()


def start_now(request: EngineRequest) -> EarlyStart:
    """Starts the JVM and the session for ``request`` on this thread (when there was no early start)."""
    started = EarlyStart(request, Future(), Future())
    _start(started)
    return started


def current() -> EarlyStart | None:
    """The early start, if there was one, left for :func:`take`."""
    return _early


def take() -> EarlyStart | None:
    """The early start, if there was one (once)."""
    global _early
    early, _early = _early, None
    return early
