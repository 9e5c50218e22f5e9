"""The kernel application: ipykernel's, with the KotlinKernel settings loaded before it (:mod:`.kernel_config`)."""

from __future__ import annotations

import gc
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

    def load_config_file(self, *args: Any, **kwargs: Any) -> None:
        """ipykernel's config files, then the KotlinKernel settings loaded before (they win, as before)."""
        super().load_config_file(*args, **kwargs)
        if self.loaded is not None:
            self.update_config(self.loaded.config)


def launch(loaded: KernelConfig, initialized: Callable[[KotlinKernelApp], None] | None = None) -> None:
    """Runs the kernel until it shuts down; ``initialized`` is called once its sockets are bound, before it serves."""
    app = KotlinKernelApp.instance(kernel_class=KotlinKernel)
    app.loaded = loaded
    app.initialize(loaded.other_arguments)
    if initialized is not None:
        initialized(app)
    app.start()
