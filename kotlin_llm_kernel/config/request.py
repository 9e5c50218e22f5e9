"""What the JVM and an engine session are started with: one immutable request, built once.

The kernel builds it from its settings (:mod:`.kernel_settings`), the Python API from its keyword arguments; the
JVM start (:mod:`.jvm.jvm`) reads its ``jvm`` part and the session (:mod:`.session.bridge`) its ``session`` part.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..jvm.jvm_options import DEFAULT_JVM_OPTIONS
from .time_limit import checked_limit


@dataclass(frozen=True)
class JvmRequest:
    """How the JVM starts; ``default_options`` can be emptied to drop the tuning flags."""

    classpath: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    default_options: tuple[str, ...] = DEFAULT_JVM_OPTIONS
    java_home: str | None = None
    #: The heap's maximum (``2g``, ``1536m``, ``2Gi``…); empty: chosen by :func:`.heap_limit.heap_options`.
    max_heap: str = ""
    #: Destroying the JVM at exit waits for non-daemon Java threads; the kernel does not (it exits through
    #: :func:`.jvm.jvm.exit_now`), a library user's process does, as any Java program would.
    destroy_at_exit: bool = True
    #: Use this configuration's class-data sharing archive, making it in the background when missing (:mod:`.cds`).
    class_data_sharing: bool = True


@dataclass(frozen=True)
class SessionRequest:
    """How a session starts: its provided properties and its Maven resolution (None: the engine's default)."""

    properties: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    local_repository: str | None = None
    repositories: tuple[str, ...] = ()
    resolution_timeout: float | None = None  # seconds
    #: Bytes of rich data one display or value may carry before only its text is kept (None: the engine's 10 MB).
    max_display_bytes: int | None = None
    #: Seconds a snippet may run before it is interrupted (0: no limit), as :mod:`.cell_timer` counts them; the host
    #: (the kernel, the Python API) enforces it, not the engine.
    cell_time_limit: float = 0.0

    def __post_init__(self) -> None:
        # read-only, so that the request cannot change after it was built
        object.__setattr__(self, "properties", MappingProxyType(dict(self.properties)))
        object.__setattr__(self, "cell_time_limit", checked_limit(self.cell_time_limit))


@dataclass(frozen=True)
class EngineRequest:
    """Everything a kernel's JVM and session start with."""

    jvm: JvmRequest = JvmRequest()
    session: SessionRequest = SessionRequest()
