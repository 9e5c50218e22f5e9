"""What the JVM and an engine session are started with: one immutable request, built once.

The kernel builds it from its settings (:mod:`.kernel_settings`), the Python API from its keyword arguments; the
JVM start (:mod:`.jvm.jvm`) reads its ``jvm`` part and the session (:mod:`.session.bridge`) its ``session`` part.
The ``jvm`` part is the JVM layer's own :class:`.jvm_options.JvmRequest`, which that layer starts from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..jvm.jvm_options import JvmRequest
from .time_limit import checked_limit


@dataclass(frozen=True)
class SessionRequest:
    """How a session starts: its provided properties and its Maven resolution (None: the engine's default)."""

    properties: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    local_repository: str | None = None
    repositories: tuple[str, ...] = ()
    resolution_timeout: float | None = None  # seconds
    #: Bytes of rich data one display or value may carry before only its text is kept (None: the engine's 10 MB).
    max_display_bytes: int | None = None
    #: Seconds a snippet may run before it is interrupted (0: no limit), as :mod:`.time_limit_error` counts them; the
    #: host (the kernel, the Python API) enforces it, not the engine.
    cell_time_limit: float = 0.0

    def __post_init__(self) -> None:
        # read-only, so that the request cannot change after it was built
        object.__setattr__(self, "properties", MappingProxyType(dict(self.properties)))
        object.__setattr__(self, "cell_time_limit", checked_limit(self.cell_time_limit))


@dataclass(frozen=True)
class EngineRequest:
    """Everything a kernel's JVM and session start with."""

    jvm: JvmRequest = JvmRequest()  # noqa: RUF009 - frozen (in another module), so sharing one is safe
    session: SessionRequest = SessionRequest()
