"""Starting the JVM and the engine session at the very beginning of the kernel process.

``python -m kotlin_llm_kernel`` calls :func:`begin` before it imports ipykernel: a daemon thread reads the engine's
settings (the ``--KotlinKernel.x`` arguments and the ``kotlin_llm_kernel_config`` files; nothing of ipykernel),
starts the JVM and creates the session, whose construction starts compiling the engine's warm-up snippet on its
own session thread. Meanwhile the main thread imports ipykernel and sets up the sockets, so the compiler's start
overlaps them. The kernel then takes the session with :func:`take` if it was made with the settings the kernel
itself reads, and otherwise makes its own.

The JVM starts with ``-Xrs`` (see :mod:`.jvm`), so it installs no signal handler whichever thread starts it;
ipykernel sets its own SIGINT disposition afterwards. ``KOTLIN_LLM_EARLY_START=0`` turns this off.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass

from .options import CONFIG_FILE, EngineOptions, EngineRequest

log = logging.getLogger(__name__)

ENV_EARLY_START = "KOTLIN_LLM_EARLY_START"
SECTION = "KotlinKernel"


@dataclass
class EarlyStart:
    request: EngineRequest
    #: The started JVM (``jvm.StartedJvm``), or why not.
    jvm: Future[object]
    #: The session (an ``engine.EngineSession``), or why not.
    session: Future[object]


_early: EarlyStart | None = None


def _kernel_arguments(argv: Sequence[str]) -> list[str]:
    """The ``--KotlinKernel.x`` arguments of ``argv`` with their values (``-f FILE`` and the rest are ipykernel's)."""
    kept: list[str] = []
    taking = False
    for arg in argv:
        if arg.startswith(f"--{SECTION}."):
            kept.append(arg)
            taking = "=" not in arg
        elif taking and not arg.startswith("-"):
            kept.append(arg)
        else:
            taking = False
    return kept


def read_request(argv: Sequence[str]) -> EngineRequest:
    """The engine settings as the kernel will read them: its config files, then its arguments."""
    from jupyter_core.paths import jupyter_config_path
    from traitlets.config import Application

    section = type(SECTION, (EngineOptions,), {})  # named as the kernel, so `--KotlinKernel.x` parses by type

    class Settings(Application):
        name = "kotlin-llm-kernel-early"
        classes = [section]  # type: ignore[assignment]

    app = Settings()
    app.parse_command_line(_kernel_arguments(argv))
    for path in reversed(jupyter_config_path()):  # later (more specific) directories win; arguments win over all
        app.load_config_file(CONFIG_FILE, path=path)
    return section(config=app.config).engine_request()


def enabled() -> bool:
    return os.environ.get(ENV_EARLY_START, "1").strip().lower() not in ("0", "false", "off", "no")


def _start(early: EarlyStart) -> None:
    from .jvm import start_jvm

    try:
        early.jvm.set_result(start_jvm(early.request.jvm))
    except BaseException as error:  # noqa: BLE001 - the kernel reports it to every cell
        early.jvm.set_exception(error)
        early.session.set_exception(error)
        return
    try:
        early.session.set_result(early.request.session.create())
    except BaseException as error:  # noqa: BLE001 - the kernel reports it to every cell
        early.session.set_exception(error)


def begin(argv: Sequence[str]) -> None:
    """Starts the JVM and the session on a daemon thread, unless turned off or the settings cannot be read."""
    global _early
    if not enabled():
        return
    try:
        request = read_request(argv)
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the kernel reads them again and reports the problem
        log.debug("no early start: %s", error)
        return
    _early = EarlyStart(request, Future(), Future())
    threading.Thread(target=_start, args=(_early,), name="kotlin-llm-early-start", daemon=True).start()


def take(request: EngineRequest) -> EarlyStart | None:
    """The early start if there was one with exactly ``request``."""
    global _early
    early, _early = _early, None
    if early is None:
        return None
    if early.request == request:
        return early
    log.warning("the kernel's settings differ from those read at start-up: making the session again")
    early.session.add_done_callback(_close_unused)
    return None


def _close_unused(future: Future[object]) -> None:
    if future.exception() is None:
        future.result().close()  # type: ignore[attr-defined]
