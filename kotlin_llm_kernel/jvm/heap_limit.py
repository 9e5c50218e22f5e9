"""The JVM's heap limit: the setting ``max_heap``, else one that leaves room for several kernels on one machine.

The JVM's own default is a quarter of the machine's memory (or of a container's limit) for each kernel, and a session
keeps what it allocated: a few kernels can take the machine. The rule, first that applies:

1. heap-size options of the user (``-Xmx``, ``-XX:MaxHeapSize``, ``-XX:MaxRAM…``): nothing is added, they decide;
2. the setting ``max_heap`` (``2g``, ``1536m``, ``2Gi``…);
3. the memory a Jupyter gateway asked for this kernel (``KERNEL_MEMORY``, a Kubernetes quantity such as ``2Gi``,
   ``512M`` or ``1e9``), less room for what the JVM needs beside the heap, within the container's limit too;
4. :data:`DEFAULT_HEAP` at most, and less where the container's limit or the machine's memory is small.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

MB = 1024 * 1024
GB = 1024 * MB

#: The heap of a kernel on a machine without a gateway's request: enough for notebooks' data frames and plots, and
#: several kernels fit on a laptop.
DEFAULT_HEAP = 2 * GB
#: What the kernel's process uses beside the heap: measured ~190 MB (the Kotlin compiler's classes and compiled
#: code, ~95 MB committed, then Python, thread stacks, the allocator's arenas), plus up to 256 MB when deep recursion
#: touches the whole stack of the session's thread. A budget is split into this and the heap, the heap keeping at
#: least half.
NON_HEAP_RESERVE = 512 * MB

#: Below this the Kotlin compiler fails (and the default -Xms96m is larger): smaller settings are refused, smaller
#: budgets get this.
MIN_HEAP = 128 * MB

#: Set by Jupyter Enterprise Gateway and gateway_provisioners from the kernel's start request (``KERNEL_`` variables).
ENV_KERNEL_MEMORY = "KERNEL_MEMORY"

#: Files holding the memory limit of this process's container: cgroup v2, then v1.
CGROUP_MEMORY_FILES = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))
#: cgroup v1 writes "no limit" as a number near 2^63.
_UNLIMITED = 1 << 60

_HEAP_OPTIONS = ("-Xmx", "-XX:MaxHeapSize=", "-XX:MaxRAM=", "-XX:MaxRAMPercentage=", "-XX:MaxRAMFraction=")

_QUANTITY = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?\s*(?:([kmgtpeKMGTPE])([iBb]?))?\s*")
_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}


class HeapSizeError(ValueError):
    """A memory size that cannot be read."""


def parse_size(text: str) -> int:
    """Bytes of a size as the JVM writes it (``2g``, ``1536m``: lower-case letters, binary units), or as Kubernetes
    does (``2Gi``, ``512Mi``: binary; ``2G``, ``512M``: decimal; ``1e9``, ``128974848``: bytes). ``2GB`` is binary."""
    match = _QUANTITY.fullmatch(text)
    if not match:
        raise HeapSizeError(f"{text!r} is not a memory size (e.g. 2g, 1536m, 2Gi, 2G or a number of bytes)")
    number, exponent, letter, suffix = match.groups()
    value = float(number) * 10 ** int(exponent or 0)
    if letter:
        binary = letter.islower() or suffix != ""
        value *= (1024 if binary else 1000) ** _POWERS[letter.lower()]
    return int(value)


def container_limit(files: Iterable[Path] = CGROUP_MEMORY_FILES) -> int | None:
    """Bytes of the container's memory limit, or None where there is none (or no cgroup file can be read)."""
    for file in files:
        try:
            text = file.read_text(encoding="ascii").strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < _UNLIMITED:
            return int(text)
        return None  # "max", or v1's "unlimited"
    return None


def machine_memory() -> int | None:
    """Bytes of the machine's physical memory, where the platform says."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def heap_for_budget(budget: int) -> int:
    """The heap of a JVM that may use ``budget`` bytes in all."""
    return max(budget // 2, budget - NON_HEAP_RESERVE)


def sets_heap_size(options: Sequence[str]) -> bool:
    """Whether ``options`` choose the heap's maximum themselves."""
    return any(option.startswith(_HEAP_OPTIONS) for option in options)


def heap_options(
    max_heap: str,
    user_options: Sequence[str],
    environ: Mapping[str, str] = os.environ,
    cgroup_files: Iterable[Path] = CGROUP_MEMORY_FILES,
    physical_memory: int | None = None,
) -> list[str]:
    """The heap limit to add to the JVM's options (empty when ``user_options`` set one): see the module's rule."""
    if sets_heap_size(user_options):
        return []
    if max_heap.strip():
        return [f"-Xmx{_megabytes(parse_size(max_heap))}m"]
    container = container_limit(cgroup_files)
    ceilings = [heap_for_budget(container)] if container else []
    requested = _kernel_memory(environ)
    if requested:
        heap = heap_for_budget(requested)
    else:
        memory = physical_memory if physical_memory is not None else machine_memory()
        # never above the JVM's own default, a quarter of the memory
        heap = min([DEFAULT_HEAP, *([memory // 4] if memory else [])])
    # a smaller heap could not run the compiler (and the JVM refuses one under the default -Xms96m)
    return [f"-Xmx{_megabytes(max(MIN_HEAP, min([heap, *ceilings])))}m"]


def _kernel_memory(environ: Mapping[str, str]) -> int | None:
    text = environ.get(ENV_KERNEL_MEMORY, "").strip()
    if not text:
        return None
    try:
        return parse_size(text) or None
    except HeapSizeError as error:
        # the gateway's variable must not stop the kernel: the default applies
        log.warning("%s ignored: %s", ENV_KERNEL_MEMORY, error)
        return None


def _megabytes(size: int) -> int:
    return max(1, size // MB)
