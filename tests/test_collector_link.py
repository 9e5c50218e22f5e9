"""Python's collections do not run Java's full collections: JPype's link from one to the other is cut when the JVM
starts (a full collection stopped a long session for ~0.2 s every few hundred cells)."""

from __future__ import annotations

import os
import subprocess
import sys

#: Grows the C heap by 30 MB between Python collections, as the JVM's native memory does, and counts the full
#: collections of the (serial) collector meanwhile. With "relink", JPype's own callback is put back first.
PROGRAM = """
import ctypes, gc, sys
import kotlin_llm_kernel
kotlin_llm_kernel.start_jvm()
import jpype, _jpype
if sys.argv[1] == "relink":
    gc.callbacks.append(_jpype._collect)
beans = jpype.JClass("java.lang.management.ManagementFactory").getGarbageCollectorMXBeans()
def full():
    return sum(b.getCollectionCount() for b in beans if str(b.getName()) == "MarkSweepCompact")
libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, (ctypes.c_size_t,)
before, held = full(), []
for _ in range(10):
    held += [libc.malloc(100_000) for _ in range(300)]
    gc.collect()
print(full() - before)
"""


def _full_collections(mode: str) -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOTLIN_LLM_")} | {"KOTLIN_LLM_CDS": "0"}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, mode], env=env, capture_output=True, text=True, timeout=300, check=True
    )
    return int(done.stdout.strip().splitlines()[-1])


def test_python_collections_run_no_full_java_collection() -> None:
    assert _full_collections("unlinked") == 0


def test_with_jpype_s_link_the_same_program_runs_them() -> None:
    # the control: the program does grow the C heap enough for JPype's rule
    assert _full_collections("relink") >= 5
