"""The JIT keeps compiling through a long session: the kernel's default JVM options reserve a code cache several
times what the Kotlin compiler's own compiled code takes after 1,000 cells (~50 MB on JDK 17, C1 alone, with its
default inlining; ~33 MB with the kernel's), as a full code cache stops the JIT for good (flushing is off) and leaves
the snippets' code interpreted. C1 inlines only tiny methods, on JDK 17 and 25 alike."""

from __future__ import annotations

import pytest

from kernel_client import execute, jdk_arguments, running_kernel

#: What the compiler's code fills in the soak of bench/soak.py (compiled code 47.5 MB at cell 500, full by cell 1,000
#: in a 48 MB cache), four times over.
MIN_CODE_CACHE_MB = 200

CODE_CACHE = """
import java.lang.management.ManagementFactory
val codePools = ManagementFactory.getMemoryPoolMXBeans().filter { it.name.startsWith("Code") }
val vm = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean::class.java)
val flushing = vm.getVMOption("UseCodeCacheFlushing").value
val inlining = vm.getVMOption("C1MaxInlineSize").value
val megabytes = codePools.sumOf { it.usage.max } / (1024 * 1024)
"$megabytes MB in ${codePools.size} pools, flushing $flushing, inlining $inlining"
"""


@pytest.mark.parametrize("jdk", ["default", "25"])
def test_the_default_options_reserve_a_code_cache_a_long_session_does_not_fill_and_inline_tiny_methods(
    jdk: str,
) -> None:
    with running_kernel(extra_arguments=jdk_arguments(jdk)) as (_km, kc):
        cell = execute(kc, CODE_CACHE)
        assert cell.status == "ok", cell.error
        assert cell.result is not None
        size, _, rest = cell.result.strip('"').partition(" MB in ")
        assert int(size) >= MIN_CODE_CACHE_MB, cell.result
        assert rest.endswith("flushing false, inlining 15"), cell.result
