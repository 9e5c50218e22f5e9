"""jupyter_kernel_test's conformance checks (message schemas, stdout/stderr, errors, results, is_complete)."""

from __future__ import annotations

from typing import ClassVar

import jupyter_kernel_test as jkt

from kernel_client import STARTUP_TIMEOUT, warm_up


class KotlinKernelConformance(jkt.KernelTests):
    kernel_name = "kotlin-llm"
    language_name = "kotlin"
    file_extension = ".kts"

    code_hello_world = 'println("hello, world")'
    code_stderr = 'System.err.println("oops")'
    code_generate_error = 'error("boom")'
    code_execute_result: ClassVar[list[dict[str, str]]] = [
        {"code": "6 * 7", "result": "42"},
        {"code": '"kot" + "lin"', "result": "kotlin"},
        {"code": "listOf(1, 2)", "result": "[1, 2]"},
    ]
    code_display_data: ClassVar[list[dict[str, str]]] = [
        {"code": 'DISPLAY(HTML("<b>x</b>"))', "mime": "text/html"},
        {"code": 'DISPLAY(MIME("text/markdown" to "**x**"))', "mime": "text/markdown"},
    ]
    code_clear_output = "clearOutput()"
    completion_samples: ClassVar[list[dict[str, object]]] = [{"text": "printl", "matches": {"println"}}]
    code_inspect_sample = "println("  # Shift+Tab inside the parentheses: println's overloads
    complete_code_samples: ClassVar[list[str]] = ["1 + 1", "fun f() = 1", 'val s = """a\n${1}"""']
    incomplete_code_samples: ClassVar[list[str]] = ["fun f() {", "listOf(1,", 'val s = """a', "x +"]
    invalid_code_samples: ClassVar[list[str]] = ["1 + 1)", "}"]

    @classmethod
    def setUpClass(cls) -> None:
        super().setUpClass()
        cls.kc.wait_for_ready(timeout=STARTUP_TIMEOUT)
        warm_up(cls.kc)  # the per-message timeouts are tight; the first compilation is slow
