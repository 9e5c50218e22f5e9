"""The kernel application: ipykernel's, knowing the KotlinKernel settings and reading their config file."""

from __future__ import annotations

import gc
from typing import Any

from ipykernel.kernelapp import IPKernelApp
from jupyter_client.session import Session
from jupyter_core.paths import jupyter_config_path
from traitlets import DottedObjectName
from traitlets.config import Application

from .kernel import KotlinKernel
from .options import CONFIG_FILE


class KotlinKernelApp(IPKernelApp):
    name = "kotlin-llm-kernel"
    # Listing KotlinKernel makes `--KotlinKernel.x=…` arguments parse by their trait types (lists, dicts, numbers).
    classes = [KotlinKernel, Session]  # type: ignore[assignment]
    outstream_class = DottedObjectName(
        "kotlin_llm_kernel.streams.OutStream",
        help="The importstring for the OutStream factory (ipykernel's, with a flush that is free when idle)",
        allow_none=True,
    ).tag(config=True)

    def start(self) -> None:
        """Freezes what start-up created before serving: JPype runs a full Python collection after every JVM
        collection (it links the two collectors), a few times per cell, and each of those traversed every object of
        ipykernel, IPython and the rest (~9 ms of CPU per cell, measured); frozen, they are no longer traversed."""
        gc.freeze()
        super().start()

    def load_config_file(self, *args: Any, **kwargs: Any) -> None:
        """Also reads ``kotlin_llm_kernel_config.py``/``.json`` from the Jupyter config path (``jupyter --paths``)."""
        super().load_config_file(*args, **kwargs)
        for path in reversed(jupyter_config_path()):  # later (more specific) directories win
            Application.load_config_file(self, CONFIG_FILE, path=path)


def launch(argv: list[str]) -> None:
    KotlinKernelApp.launch_instance(argv=argv, kernel_class=KotlinKernel)
