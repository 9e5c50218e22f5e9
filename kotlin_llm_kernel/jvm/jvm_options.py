"""The JVM's command: the engine's jars, and the options a :class:`JvmRequest` stands for on a Java runtime.

The default tuning flags are data (``jvm.properties`` beside this module), shared with the engine's Maven tests.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .heap_limit import heap_options
from .java_runtime import JavaRuntime

JARS_DIR = Path(__file__).parent.parent / "jars"  # the package's, where the build hook puts them
PROPERTIES_FILE = Path(__file__).with_name("jvm.properties")
DEFAULT_OPTIONS_PROPERTY = "kotlinllm.jvm.defaultOptions"

#: Environment variables read at start: extra classpath entries (os.pathsep-separated), extra JVM options,
#: and a directory of engine jars replacing the bundled ones (for development).
ENV_CLASSPATH = "KOTLIN_LLM_CLASSPATH"
ENV_JVM_OPTIONS = "KOTLIN_LLM_JVM_OPTIONS"
ENV_ENGINE_JARS = "KOTLIN_LLM_ENGINE_JARS"

RESOLVER_CLASSPATH_PROPERTY = "kotlinllm.resolver.classpath"


class EngineNotBuiltError(RuntimeError):
    """The package has no engine jars (installed without running its build hook)."""


def read_properties(path: Path) -> dict[str, str]:
    """The ``key=value`` lines of a properties file (comments and blank lines skipped; no line continuations)."""
    properties: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "!")):
            key, _, value = stripped.partition("=")
            properties[key.strip()] = value.strip()
    return properties


#: The tuning flags of ``jvm.properties``: why each is there is said in that file.
DEFAULT_JVM_OPTIONS: tuple[str, ...] = tuple(read_properties(PROPERTIES_FILE)[DEFAULT_OPTIONS_PROPERTY].split())


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
    #: :func:`.jvm.exit_now`), a library user's process does, as any Java program would.
    destroy_at_exit: bool = True
    #: Use this configuration's class-data sharing archive, making it in the background when missing (:mod:`.cds`).
    class_data_sharing: bool = True


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


def jvm_command(request: JvmRequest, java: JavaRuntime) -> tuple[list[str], list[str]]:
    """The classpath and JVM options for ``request`` on ``java``."""
    classpath, resolver = engine_jars()
    classpath += list(request.classpath)
    classpath += [p for p in os.environ.get(ENV_CLASSPATH, "").split(os.pathsep) if p]
    user_options = [*request.default_options, *request.options, *shlex.split(os.environ.get(ENV_JVM_OPTIONS, ""))]
    options = [
        "-Xrs",  # no JVM signal handlers: SIGINT belongs to the kernel (a HotSpot handler would kill it)
        "-Dfile.encoding=UTF-8",
        # The engine logs through SLF4J; without a provider SLF4J warns on the snippets' stderr. Overridable.
        "-Dslf4j.provider=org.slf4j.helpers.NOP_FallbackServiceProvider",
        "-Dslf4j.internal.verbosity=WARN",
        # images drawn with java.awt (rich output) never look for a display server
        "-Djava.awt.headless=true",
        *_version_options(java),
        # the heap's limit comes first: heap-size options of the user replace it (heap_limit)
        *heap_options(request.max_heap, user_options),
        *user_options,
    ]
    if resolver:
        options.append(f"-D{RESOLVER_CLASSPATH_PROPERTY}={os.pathsep.join(resolver)}")
    return classpath, options


def redacted(options: Sequence[str]) -> list[str]:
    """Options for the log: system property values may be secrets, so only their names are shown."""
    return [re.sub(r"^(-D[^=]+=).*", r"\1…", option) for option in options]
