"""The kernel application: ipykernel's, with the KotlinKernel settings loaded before it (:mod:`.kernel_config`)."""

from __future__ import annotations

import gc
import ipaddress
import logging
from collections.abc import Callable
from typing import Any

from ipykernel.kernelapp import IPKernelApp
from jupyter_client.session import Session
from traitlets import DottedObjectName, default

from ..config.kernel_config import KernelConfig
from ..config.request import EngineRequest
from .kernel import KotlinKernel
from .packing import packing_lone_surrogates


class KotlinKernelApp(IPKernelApp):
    name = "kotlin-llm-kernel"
    # Listed so that `--help-all` documents the KotlinKernel settings.
    classes = [KotlinKernel, Session]  # type: ignore[assignment]  # noqa: RUF012 - as the base class declares it
    outstream_class = DottedObjectName(
        "kotlin_llm_kernel.jupyter.streams.OutStream",
        help="The importstring for the OutStream factory (ipykernel's, with a flush that is free when idle)",
        allow_none=True,
    ).tag(config=True)

    #: The configuration loaded at the start of the process; its request is the kernel's.
    loaded: KernelConfig | None = None

    @property
    def engine_request(self) -> EngineRequest | None:
        return None if self.loaded is None else self.loaded.request

    def start(self) -> None:
        """Freezes what start-up created before serving: JPype runs a full Python collection after every JVM
        collection (it links the two collectors), a few times per cell, and each of those would traverse every
        object of ipykernel, IPython and the rest; frozen, they are no longer traversed."""
        gc.freeze()
        super().start()

    @default("session")
    def _session_default(self) -> Session:
        """ipykernel's session, whose packer also packs a lone surrogate a client sent in a header, so that the
        request still gets its reply (without it, no message under that request can be sent)."""
        session = Session(parent=self)
        session.pack = packing_lone_surrogates(session.pack)
        return session

    def init_sockets(self) -> None:
        """ipykernel's sockets, without its warning that TCP is not encrypted when they are bound to a loopback
        address: nothing leaves the machine then (what the warning is about is another local user, whom the
        connection file's key and permissions keep out). Bound to any other address, the warning stays."""
        if not is_loopback(self.ip):
            super().init_sockets()
            return
        unencrypted = _MessageFilter(UNENCRYPTED_TCP_WARNING)
        self.log.addFilter(unencrypted)
        try:
            super().init_sockets()
        finally:
            self.log.removeFilter(unencrypted)

    def load_config_file(self, *args: Any, **kwargs: Any) -> None:
        """ipykernel's config files, then the KotlinKernel settings loaded before (they win, as before)."""
        super().load_config_file(*args, **kwargs)
        if self.loaded is not None:
            self.update_config(self.loaded.config)


#: How ipykernel's warning about unencrypted TCP begins.
UNENCRYPTED_TCP_WARNING = "Kernel is running over TCP without encryption."


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


class _MessageFilter(logging.Filter):
    """Drops the log records whose message begins with ``prefix``."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self._prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(self._prefix)


def launch(loaded: KernelConfig, initialized: Callable[[KotlinKernelApp], None] | None = None) -> None:
    """Runs the kernel until it shuts down; ``initialized`` is called once its sockets are bound, before it serves."""
    app = KotlinKernelApp.instance(kernel_class=KotlinKernel)
    app.loaded = loaded
    app.initialize(loaded.other_arguments)
    if initialized is not None:
        initialized(app)
    app.start()
