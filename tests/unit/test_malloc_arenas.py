"""The kernel's limit on malloc arenas, set through the real C library in a fresh process."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest
from kotlin_llm_kernel.jvm.malloc_arenas import ENV_ARENA_MAX, limit_arenas

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


def _environment(**extra: str) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != ENV_ARENA_MAX} | extra


def _in_new_process(environ: dict[str, str]) -> str:
    code = "import os; from kotlin_llm_kernel.jvm.malloc_arenas import limit_arenas; print(limit_arenas(os.environ))"
    result = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=True)
    return result.stdout.strip()


@pytest.mark.skipif(not GLIBC, reason="mallopt is glibc's")
def test_glibc_takes_the_limit() -> None:
    assert _in_new_process(_environment()) == "True"


def test_the_users_own_setting_stands() -> None:
    assert limit_arenas({ENV_ARENA_MAX: "4"}) is False
    assert _in_new_process(_environment(**{ENV_ARENA_MAX: "4"})) == "False"
