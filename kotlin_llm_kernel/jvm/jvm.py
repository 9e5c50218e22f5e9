"""Starting the embedded JVM (JPype) with the bundled engine jars.

One JVM per process, started once: JPype cannot restart it, so "restart kernel" means a new process.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from dataclasses import dataclass

from . import cds
from .java_runtime import JavaRuntime, find_java
from .jvm_options import JvmRequest, jvm_command, redacted

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StartedJvm:
    java: JavaRuntime
    classpath: tuple[str, ...]
    options: tuple[str, ...]


_lock = threading.Lock()
_started: StartedJvm | None = None


def start_jvm(request: JvmRequest | None = None) -> StartedJvm:
    """Starts the JVM once per process; later calls return the running one (their request is ignored)."""
    global _started
    import jpype
    import jpype.config

    with _lock:
        if _started is not None:
            return _started
        request = request or JvmRequest()
        java = find_java(request.java_home)
        classpath, options = jvm_command(request, java)
        if cds.enabled(request.class_data_sharing):
            options += cds.options_for(java, classpath, options)
        jpype.config.destroy_jvm = request.destroy_at_exit
        log.info(
            "starting %s with %d classpath entries, options %s", java.describe(), len(classpath), redacted(options)
        )
        jpype.startJVM(
            *options,
            jvmpath=str(java.libjvm),
            classpath=classpath,
            convertStrings=False,
            ignoreUnrecognized=False,
        )
        _unlink_collectors()
        _started = StartedJvm(java=java, classpath=tuple(classpath), options=tuple(options))
        return _started


def _unlink_collectors() -> None:
    """Stops JPype from running Java's ``System.gc()`` after Python's collections.

    JPype does so whenever the C heap (glibc's count of allocated bytes, which the JVM's own native memory is part
    of) has grown by 20 MB since: in a session that is every few hundred cells, each a full collection that stops
    the session for ~0.2 s and more as its heap grows. The link is there for Python objects that Java holds
    (proxies), which a Java collection would free; the engine hands Java none. Java's collections still run as the
    heap needs them, and the session gives memory back itself (the engine's MemoryReturn).
    """
    import gc

    import _jpype

    collect = getattr(_jpype, "_collect", None)
    while collect is not None and collect in gc.callbacks:  # JPype may register it more than once
        gc.callbacks.remove(collect)


def started_jvm() -> StartedJvm | None:
    return _started


def exit_now(code: int = 0) -> None:
    """Ends the process at once, without atexit handlers or Python's finalization.

    With the JVM left running (``destroy_at_exit=False``, so that non-daemon Java threads cannot keep a kernel
    alive), finalizing Python while JVM threads still call into it can abort the process ("FATAL: exception not
    rethrown"), and atexit handlers race ipykernel's zmq threads. The kernel has sent its last message by then;
    its connection file belongs to the kernel manager.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - closed or redirected streams
            pass
    os._exit(code)
