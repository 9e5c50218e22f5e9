"""The kernel's settings, as traitlets, and the one request for the JVM and the session that they build.

``c.KotlinKernel.x`` in a config file, ``--KotlinKernel.x=…`` in the kernel's argv. They live here, apart from the
kernel, so that they can be read before ipykernel is imported (:mod:`.kernel_config`): the kernel class
(:class:`.kernel.KotlinKernel`) inherits them, and both carry the name ``KotlinKernel``, which is the name of the
config section and of the arguments (traitlets names them after the class).
"""

from __future__ import annotations

import os

from traitlets import Bool, Float, Int, List, TraitError, Unicode, default, validate
from traitlets.config import Configurable

from ..jvm.heap_limit import MB, MIN_HEAP, HeapSizeError, parse_size
from ..jvm.jvm_options import DEFAULT_JVM_OPTIONS, JvmRequest
from .json_trait import JsonDict
from .request import EngineRequest, SessionRequest
from .spares import ENV_SPARES, ENV_SPARES_DIR, SpareSettings, default_pool, default_size
from .time_limit import ENV_CELL_TIME_LIMIT, TimeLimitError, checked_limit, parse_limit


class KotlinKernel(Configurable):
    classpath = List(Unicode(), help="Extra classpath entries (jars or directories) for the snippets.").tag(config=True)
    jvm_options = List(Unicode(), help="Extra JVM options, e.g. ['-Xmx2g'].").tag(config=True)
    default_jvm_options = List(
        Unicode(),
        default_value=list(DEFAULT_JVM_OPTIONS),
        help="JVM tuning flags added before jvm_options (C1 only, the serial GC, a small heap: see jvm.properties).",
    ).tag(config=True)
    max_heap = Unicode(
        "",
        help="The JVM's heap limit, e.g. '4g', '1536m' or '2Gi'. Empty: the memory a Jupyter gateway asked for the "
        "kernel (KERNEL_MEMORY) less 512 MB, else 2 GB; within a container's limit and at most a quarter of the "
        "machine's memory. A heap size in jvm_options or KOTLIN_LLM_JVM_OPTIONS (-Xmx…) wins.",
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
    repositories = List(
        Unicode(), help="Maven repositories used until a snippet declares one; default Maven Central."
    ).tag(config=True)
    resolution_timeout = Float(0.0, help="Seconds a repository may stay silent (0: the engine's default).").tag(
        config=True
    )

    show_warnings = Bool(True, help="Show compiler warnings of successful cells on stderr.").tag(config=True)
    max_output_chars = Int(
        20_000_000, help="Characters of output shown per cell; the rest is cut with a notice (0: no limit)."
    ).tag(config=True)
    max_display_bytes = Int(
        10_000_000,
        help="Bytes of rich data (HTML, images, JSON) one display or cell value may carry; past it only its text is "
        "shown, with a notice.",
    ).tag(config=True)
    cell_time_limit = Float(
        help="Seconds a cell may run (compiling and running its code; not waiting behind another cell, for its "
        "@file:DependsOn dependencies or for input) before it is interrupted, with an error saying the limit; 0: no "
        f"limit. Default: the environment variable {ENV_CELL_TIME_LIMIT} (which Jupyter gateways pass from the "
        "kernel's start request), else 0.",
    ).tag(config=True)
    log_level = Unicode("WARNING", help="Level of the kernel's log (DEBUG, INFO, WARNING, ERROR).").tag(config=True)

    spares = Int(
        help="Warm spares kept ready for each kind of start (argv, settings, environment, working directory): a start "
        "takes one if it is there, and the next is prepared in the background; 0: none. Default: the environment "
        f"variable {ENV_SPARES}, else 1."
    ).tag(config=True)
    spare_idle_timeout = Float(600.0, help="Seconds an unclaimed spare waits before it ends itself.").tag(config=True)
    spare_memory_ceiling = Int(
        2048, help="MB that all spares of the pool may take together; no spare is started past it."
    ).tag(config=True)
    spare_refill_delay = Float(
        5.0, help="Seconds after a start before the next spare starts, so that the new kernel's first cells go first."
    ).tag(config=True)
    spare_pool = Unicode(
        help=f"The spares' directory. Default: the environment variable {ENV_SPARES_DIR}, else kotlin-llm-spares in "
        "the Jupyter runtime directory (one pool per user)."
    ).tag(config=True)

    @validate("max_heap")
    def _valid_max_heap(self, proposal: dict[str, object]) -> str:
        value = str(proposal["value"])
        if value.strip():
            try:
                size = parse_size(value)
            except HeapSizeError as error:
                raise TraitError(f"max_heap: {error}") from error
            if size < MIN_HEAP:
                raise TraitError(f"max_heap: {value!r} is below the {MIN_HEAP // MB} MB the Kotlin compiler needs")
        return value

    @default("cell_time_limit")
    def _cell_time_limit_from_environment(self) -> float:
        try:
            return parse_limit(os.environ.get(ENV_CELL_TIME_LIMIT, ""))
        except TimeLimitError as error:
            raise TraitError(str(error)) from None

    @default("spares")
    def _spares_from_environment(self) -> int:
        try:
            return default_size()
        except ValueError as error:
            raise TraitError(str(error)) from None

    @default("spare_pool")
    def _spare_pool_from_environment(self) -> str:
        return default_pool()

    @validate("cell_time_limit")
    def _valid_cell_time_limit(self, proposal: dict[str, object]) -> float:
        try:
            return checked_limit(proposal["value"])
        except TimeLimitError as error:
            raise TraitError(str(error)) from None

    def engine_request(self) -> EngineRequest:
        jvm = JvmRequest(
            classpath=tuple(self.classpath),
            options=tuple(self.jvm_options),
            default_options=tuple(self.default_jvm_options),
            java_home=self.java_home or None,
            max_heap=self.max_heap,
            destroy_at_exit=False,  # the kernel exits through jvm.exit_now: no Java thread may keep it alive
            class_data_sharing=self.class_data_sharing,
        )
        session = SessionRequest(
            properties=dict(self.properties),
            local_repository=self.local_repository or None,
            repositories=tuple(self.repositories),
            resolution_timeout=self.resolution_timeout or None,
            max_display_bytes=self.max_display_bytes,
            cell_time_limit=self.cell_time_limit,
        )
        return EngineRequest(jvm, session)

    def spare_settings(self) -> SpareSettings:
        return SpareSettings(
            size=max(0, self.spares),
            idle_timeout=self.spare_idle_timeout,
            memory_ceiling=self.spare_memory_ceiling,
            refill_delay=max(0.0, self.spare_refill_delay),
            pool=self.spare_pool,
        )
