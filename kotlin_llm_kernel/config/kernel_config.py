"""The kernel's configuration, loaded once at the start of the kernel process, before ipykernel is imported.

traitlets' :class:`~traitlets.config.Application` (the loader ipykernel's application is built on) reads the
``kotlin_llm_kernel_config`` files of the Jupyter config path (later, more specific directories win) and the
``--KotlinKernel.x`` arguments (which win over the files). The result serves both the early start (:mod:`.early`)
and the kernel application (:mod:`.app`), which merges this config into its own and hands the kernel the request
built here; ipykernel's application parses only the remaining arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from jupyter_core.paths import jupyter_config_path
from traitlets.config import Application, Config

from .kernel_settings import KotlinKernel
from .request import EngineRequest
from .spares import SpareSettings

#: The kernel's own config file, read from every directory of the Jupyter config path (``jupyter --paths``).
CONFIG_FILE = "kotlin_llm_kernel_config"


@dataclass(frozen=True)
class KernelConfig:
    #: The ``KotlinKernel`` settings of the files and the arguments.
    config: Config
    #: What the JVM and the session start with, built from ``config``.
    request: EngineRequest
    #: The arguments left for ipykernel's application (``-f CONNECTION_FILE`` and the like).
    other_arguments: list[str]
    #: How many warm spares the start keeps, and for how long (:mod:`kotlin_llm_kernel.spares`).
    spares: SpareSettings = SpareSettings()  # noqa: RUF009 - frozen, so sharing one is safe


def split_arguments(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """The ``--KotlinKernel.x`` arguments with their values, and the others."""
    kernel: list[str] = []
    others: list[str] = []
    taking = False
    for arg in argv:
        if arg.startswith(f"--{KotlinKernel.__name__}."):
            kernel.append(arg)
            taking = "=" not in arg
        elif taking and not arg.startswith("-"):
            kernel.append(arg)
        else:
            others.append(arg)
            taking = False
    return kernel, others


def load(argv: Sequence[str]) -> KernelConfig:
    """Reads the config files and the arguments; raises when a setting is malformed."""
    kernel_arguments, others = split_arguments(argv)
    loader = Application(name="kotlin-llm-kernel")
    loader.classes = [KotlinKernel]  # so that each argument is parsed by its setting's type
    loader.parse_command_line(kernel_arguments)
    for path in reversed(jupyter_config_path()):  # later (more specific) directories win; arguments win over all
        loader.load_config_file(CONFIG_FILE, path=path)
    settings = KotlinKernel(config=loader.config)
    return KernelConfig(loader.config, settings.engine_request(), others, settings.spare_settings())
