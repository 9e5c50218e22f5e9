"""The kernel's settings that decide how the engine starts: the JVM's and the session's.

They are ``KotlinKernel`` settings (``c.KotlinKernel.x`` in a config file, ``--KotlinKernel.x=…`` in the kernel's
argv) and live here, apart from the kernel, so that :mod:`.early` can read them before ipykernel is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from traitlets import Bool, Float, List, Unicode
from traitlets.config import Configurable

from .jvm import DEFAULT_JVM_OPTIONS, JvmSettings
from .settings import JsonDict

if TYPE_CHECKING:
    from .engine import EngineSession

#: The kernel's own config file, read from every directory of the Jupyter config path (``jupyter --paths``).
CONFIG_FILE = "kotlin_llm_kernel_config"


@dataclass(frozen=True)
class SessionRequest:
    """What a session is created with (see :class:`.engine.EngineSession`)."""

    local_repository: str | None = None
    repositories: tuple[str, ...] = ()
    resolution_timeout: float | None = None
    properties: dict[str, Any] = field(default_factory=dict)

    def create(self) -> EngineSession:
        """Creates the session (the JVM must be running); its compiler starts warming up on its own thread."""
        from .engine import EngineSession, SessionSettings

        settings = SessionSettings(self.local_repository, self.repositories, self.resolution_timeout)
        return EngineSession(self.properties, settings)


@dataclass(frozen=True)
class EngineRequest:
    """Everything the JVM and the session are started with."""

    jvm: JvmSettings
    session: SessionRequest


class EngineOptions(Configurable):
    classpath = List(Unicode(), help="Extra classpath entries (jars or directories) for the snippets.").tag(config=True)
    jvm_options = List(Unicode(), help="Extra JVM options, e.g. ['-Xmx2g'].").tag(config=True)
    default_jvm_options = List(
        Unicode(),
        default_value=list(DEFAULT_JVM_OPTIONS),
        help="JVM tuning flags added before jvm_options (C1 only, the serial GC, a small heap: see jvm.py).",
    ).tag(config=True)
    class_data_sharing = Bool(
        True,
        help="Start the JVM with a class-data sharing archive of the engine (made in the background on the first "
        "start, kept in the user's cache directory); the environment variable KOTLIN_LLM_CDS=0 turns it off too.",
    ).tag(config=True)
    java_home = Unicode("", help="The Java home to run on; default: JAVA_HOME, then `java` on PATH.").tag(config=True)
    properties = JsonDict(
        help="Properties provided to the snippets: name → JSON value (String, Long, Double, Boolean, List, Map)."
    ).tag(config=True)
    local_repository = Unicode("", help="Local Maven repository for @file:DependsOn; default ~/.m2/repository.").tag(
        config=True
    )
    repositories = List(Unicode(), help="Maven repositories used until a snippet declares one; default Maven Central.").tag(
        config=True
    )
    resolution_timeout = Float(0.0, help="Seconds a repository may stay silent (0: the engine's default).").tag(
        config=True
    )

    def engine_request(self) -> EngineRequest:
        jvm = JvmSettings(
            classpath=tuple(self.classpath),
            options=tuple(self.jvm_options),
            default_options=tuple(self.default_jvm_options),
            java_home=self.java_home or None,
            destroy_at_exit=False,  # the kernel exits through jvm.exit_now: no Java thread may keep it alive
            class_data_sharing=self.class_data_sharing,
        )
        session = SessionRequest(
            local_repository=self.local_repository or None,
            repositories=tuple(self.repositories),
            resolution_timeout=self.resolution_timeout or None,
            properties=dict(self.properties),
        )
        return EngineRequest(jvm, session)
