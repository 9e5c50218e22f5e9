"""Memory after faults, over the real protocol on JDK 17 and 25: an OutOfMemoryError names the limit and the
session's largest values, and once they are released the next allocation works and RSS comes back; a
StackOverflowError leaves RSS where it was, the session going on (on a fresh thread) with its state."""

from __future__ import annotations

import re
import time
from typing import Any

import psutil

from kernel_client import execute

#: A small heap fills in a few seconds.
FAULT_KERNEL_ARGUMENTS = ["--KotlinKernel.max_heap=512m"]

MB = 1_000_000
#: RSS comes back within a few seconds (the JVM frees an ended thread's arenas within 5 s); this bound catches hangs.
RSS_WAIT_SECONDS = 60.0

FILL = "val big = ArrayList<LongArray>()\nwhile (true) big.add(LongArray(10_000_000))"
HINT = re.compile(
    r"hint: the heap limit is \d+ MB; raise it with the kernel setting max_heap \(e\.g\. --KotlinKernel\.max_heap=4g\) "
    r"or the JVM option -Xmx\. The largest values of the session: big \(ArrayList, ~\d+ MB\)\. Values of the session "
    r"keep their memory until released: empty them \(e\.g\. big\.clear\(\)\) or declare them again \(val big = 0\)$"
)
OVERFLOW = (
    "java.lang.StackOverflowError\n  at f(snippet{n}.kts:1)\n  | fun f(n: Int): Int = f(n + 1) + 1; f(0)\n"
    "  ... the frame above repeats {repeats} more times"
)
#: The JVM keeps 1,024 frames of a StackOverflowError; the top one may be the engine's interruption check on entry to
#: ``f``, which the rendering leaves out.
REPEATS = (1022, 1023)


def _rss(km: Any) -> int:
    return int(psutil.Process(km.provisioner.pid).memory_info().rss)


def _wait_for_rss_at_most(km: Any, bound: int) -> int:
    """The kernel's RSS once it is at most ``bound`` (it comes back after the cell's reply), or the last one seen."""
    deadline = time.monotonic() + RSS_WAIT_SECONDS
    rss = _rss(km)
    while rss > bound and time.monotonic() < deadline:
        time.sleep(0.5)
        rss = _rss(km)
    return rss


def _pid(kc: Any) -> str | None:
    return execute(kc, "ProcessHandle.current().pid()").result


def test_an_out_of_memory_error_names_the_largest_values_and_memory_comes_back_once_released(
    fault_kernel: tuple[Any, Any],
) -> None:
    km, kc = fault_kernel
    pid = _pid(kc)
    before = _rss(km)
    failed = execute(kc, FILL)
    assert failed.error is not None
    assert failed.error["ename"] == "java.lang.OutOfMemoryError", failed.error
    text = "\n".join(failed.error["traceback"])
    assert HINT.search(text), text
    assert execute(kc, "keep").result == "42"
    assert execute(kc, "big.clear()").status == "ok"
    assert execute(kc, "LongArray(10_000_000).size").result == "10000000"
    after = _wait_for_rss_at_most(km, before * 3 // 2)
    assert after <= before * 3 // 2, f"RSS {before / MB:.0f} MB before the fault, {after / MB:.0f} MB after release"
    assert _pid(kc) == pid, "the same kernel process"


def test_a_stack_overflow_leaves_rss_where_it_was_and_deep_recursion_still_works(fault_kernel: tuple[Any, Any]) -> None:
    km, kc = fault_kernel
    pid = _pid(kc)
    before = _rss(km)
    failed = execute(kc, "fun f(n: Int): Int = f(n + 1) + 1; f(0)")
    assert failed.error is not None
    assert failed.error["ename"] == "java.lang.StackOverflowError", failed.error
    number = failed.content["execution_count"]
    rendered = "\n".join(failed.error["traceback"])
    assert rendered in [OVERFLOW.format(n=number, repeats=repeats) for repeats in REPEATS], rendered
    assert execute(kc, "keep").result == "42"
    deep = "fun depth(n: Int): Int = if (n == 0) 0 else depth(n - 1) + 1\ndepth(100_000)"
    assert execute(kc, deep).result == "100000", "deep recursion that ends still has the session's stack"
    assert execute(kc, "listOf(1, 2, 3).sum()").result == "6"
    assert execute(kc, 'println("printed after")').stdout == "printed after\n", "output still reaches the cell"
    after = _wait_for_rss_at_most(km, before + 50 * MB)
    assert after <= before + 50 * MB, f"RSS {before / MB:.0f} MB before the overflow, {after / MB:.0f} MB after"
    assert _pid(kc) == pid, "the same kernel process"
