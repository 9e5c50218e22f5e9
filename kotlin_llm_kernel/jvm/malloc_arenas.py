"""Fewer malloc arenas in the kernel's process.

glibc gives threads that allocate at once arenas of their own, up to eight per core, and keeps what each arena
once held. The kernel's process has dozens of threads (the JVM's compiler and collector threads, the Kotlin
compiler's, ipykernel's), so memory freed in one arena is not reused by the others and the process's RSS grows by
the sum of their peaks. Two arenas are what JVM hosts commonly set (``MALLOC_ARENA_MAX=2``); the kernel does it
itself, before any other thread starts, as a kernelspec cannot set an environment variable for every launcher.
Figures are in bench/RESULTS.md ("Long sessions").
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from collections.abc import Mapping

log = logging.getLogger(__name__)

#: The variable glibc reads itself at start: when the user set it, that choice stands.
ENV_ARENA_MAX = "MALLOC_ARENA_MAX"
ARENAS = 2
#: glibc's ``mallopt`` parameter for the arena limit (malloc.h).
_M_ARENA_MAX = -8


def limit_arenas(environ: Mapping[str, str] = os.environ) -> bool:
    """Limits this process to :data:`ARENAS` malloc arenas, unless ``MALLOC_ARENA_MAX`` is set or the C library is
    not glibc. Returns whether the limit was set. Call it before threads start: arenas made before stay."""
    if ENV_ARENA_MAX in environ or not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no mallopt (not glibc)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    done = bool(mallopt(_M_ARENA_MAX, ARENAS))  # 1 on success; musl's stub answers 0
    if not done:
        log.debug("the C library did not take a limit of %d malloc arenas", ARENAS)
    return done
