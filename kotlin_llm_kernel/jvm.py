"""Starting the embedded JVM (JPype) with the bundled engine jars.

One JVM per process, started once: JPype cannot restart it, so "restart kernel" means a new process.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from . import cds
from .java import JavaRuntime, find_java

log = logging.getLogger(__name__)

JARS_DIR = Path(__file__).with_name("jars")

#: JVM tuning, each measured on 2 cores (bench/RESULTS.md, "Levers"; research k2-repl §7).
#: jvm/pom.xml's `soft-references` test execution runs the engine with the same options: change both together.
DEFAULT_JVM_OPTIONS: tuple[str, ...] = (
    # C1 only: C2 compiler threads compete with the Kotlin compiler; faster and about half the CPU.
    "-XX:TieredStopAtLevel=1",
    # The serial collector: no concurrent GC threads competing for the 2 cores, and less RSS than G1.
    "-XX:+UseSerialGC",
    # A smaller heap to begin with: the default initial heap is 1/64 of the machine's memory (383 MB here), a
    # third of it young generation whose pages all get touched by the compiler's garbage. A fixed 24 MB young
    # generation keeps that churn in fewer pages; the old generation grows with what the session keeps, and
    # shrinks after a full collection when more than 40% of it is free. Measured (bench/RESULTS.md, "Levers"):
    # 64 MB instead of the default saved ~60 MB of RSS after 50 cells, cells as fast; 32 MB instead of 64 MB saved
    # ~33 MB more with the same CPU over 200 cells; 24 MB instead of 32 MB saves ~9 MB more at the same CPU now that
    # each JVM collection no longer costs a Python collection over IPython's objects (app.py, gc.freeze); 16 MB
    # saved ~4 MB more and made the first result slower (3.45 vs 2.99 s in the same run).
    "-Xms96m",
    "-Xmn24m",
    "-XX:MinHeapFreeRatio=20",
    "-XX:MaxHeapFreeRatio=40",
)

#: Environment variables read at start: extra classpath entries (os.pathsep-separated), extra JVM options,
#: and a directory of engine jars replacing the bundled ones (for development).
ENV_CLASSPATH = "KOTLIN_LLM_CLASSPATH"
ENV_JVM_OPTIONS = "KOTLIN_LLM_JVM_OPTIONS"
ENV_ENGINE_JARS = "KOTLIN_LLM_ENGINE_JARS"

RESOLVER_CLASSPATH_PROPERTY = "kotlinllm.resolver.classpath"


class EngineNotBuiltError(RuntimeError):
    """The package has no engine jars (installed without running its build hook)."""


@dataclass(frozen=True)
class JvmSettings:
    """What the JVM is started with; ``default_options`` can be emptied to drop the tuning flags."""

    classpath: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    default_options: tuple[str, ...] = DEFAULT_JVM_OPTIONS
    java_home: str | None = None
    #: Destroying the JVM at exit waits for non-daemon Java threads; the kernel does not (it exits through
    #: :func:`exit_now`), a library user's process does, as any Java program would.
    destroy_at_exit: bool = True
    #: Use this configuration's class-data sharing archive, making it in the background when missing (:mod:`.cds`).
    class_data_sharing: bool = True


@dataclass(frozen=True)
class StartedJvm:
    java: JavaRuntime
    classpath: tuple[str, ...]
    options: tuple[str, ...]


_lock = threading.Lock()
_started: StartedJvm | None = None


def engine_jars(jars_dir: Path | None = None) -> tuple[list[str], list[str]]:
    """The engine's classpath (engine jar + runtime jars) and the isolated resolver's jars."""
    root = Path(os.environ.get(ENV_ENGINE_JARS) or jars_dir or JARS_DIR)
    engine = sorted(root.glob("kotlin-llm-engine-*.jar"))
    if not engine:
        raise EngineNotBuiltError(
            f"The Kotlin engine jars are missing from {root}: reinstall the package with `pip install .` "
            "(which runs the Maven build) or set KOTLIN_LLM_ENGINE_JARS to a build directory."
        )
    classpath = [str(engine[-1]), *map(str, sorted((root / "lib").glob("*.jar")))]
    resolver = [str(p) for p in sorted((root / "resolver-lib").glob("*.jar"))]
    return classpath, resolver


def _version_options(java: JavaRuntime) -> list[str]:
    options: list[str] = []
    if java.version >= 22:  # FFM is final: the compiler's native access is otherwise warned about
        options.append("--enable-native-access=ALL-UNNAMED")
    if java.version >= 23:  # sun.misc.Unsafe memory access (FastJarFileSystem) is otherwise warned about
        options.append("--sun-misc-unsafe-memory-access=allow")
    return options


def jvm_command(settings: JvmSettings, java: JavaRuntime) -> tuple[list[str], list[str]]:
    """The classpath and JVM options for ``settings`` on ``java``."""
    classpath, resolver = engine_jars()
    classpath += list(settings.classpath)
    classpath += [p for p in os.environ.get(ENV_CLASSPATH, "").split(os.pathsep) if p]
    options = [
        "-Xrs",  # no JVM signal handlers: SIGINT belongs to the kernel (a HotSpot handler would kill it)
        "-Dfile.encoding=UTF-8",
        # The engine logs through SLF4J; without a provider SLF4J warns on the snippets' stderr. Overridable.
        "-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider",
        "-Dslf4j.internal.verbosity=WARN",
        *_version_options(java),
        *settings.default_options,
        *settings.options,
        *shlex.split(os.environ.get(ENV_JVM_OPTIONS, "")),
    ]
    if resolver:
        options.append(f"-D{RESOLVER_CLASSPATH_PROPERTY}={os.pathsep.join(resolver)}")
    return classpath, options


def redacted(options: Sequence[str]) -> list[str]:
    """Options for the log: system property values may be secrets, so only their names are shown."""
    return [re.sub(r"^(-D[^=]+=).*", r"\1…", option) for option in options]


def start_jvm(settings: JvmSettings | None = None) -> StartedJvm:
    """Starts the JVM once per process; later calls return the running one (their settings are ignored)."""
    global _started
    import jpype
    import jpype.config

    with _lock:
        if _started is not None:
            return _started
        settings = settings or JvmSettings()
        java = find_java(settings.java_home)
        classpath, options = jvm_command(settings, java)
        if cds.enabled(settings.class_data_sharing):
            options += cds.options_for(java, classpath, options)
        jpype.config.destroy_jvm = settings.destroy_at_exit
        log.info("starting %s with %d classpath entries, options %s", java.describe(), len(classpath), redacted(options))
        jpype.startJVM(
            *options,
            jvmpath=str(java.libjvm),
            classpath=classpath,
            convertStrings=False,
            ignoreUnrecognized=False,
        )
        _started = StartedJvm(java=java, classpath=tuple(classpath), options=tuple(options))
        return _started


def started_jvm() -> StartedJvm | None:
    return _started


def exit_now(code: int = 0) -> None:
    """Ends the process at once, without atexit handlers or Python's finalization.

    With the JVM left running (``destroy_at_exit=False``, so that non-daemon Java threads cannot keep a kernel
    alive), finalizing Python while JVM threads still call into it can abort the process ("FATAL: exception not
    rethrown"), and atexit handlers race ipykernel's zmq threads. The kernel has sent its last message by then;
    its connection file belongs to the kernel manager.
    """
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - closed or redirected streams
            pass
    os._exit(code)
