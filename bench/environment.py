"""What the results depend on: the machine, its load, the JDK, Python, package versions and the repository state."""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import socket
import subprocess
from collections.abc import Mapping
from pathlib import Path

import psutil

#: This folder, and the repository whose code is measured.
BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent

#: Variables that would give one kernel a different JDK or JVM options than its defaults; the benchmark drops them
#: so that both kernels and the floor run on the same JDK (``JAVA_HOME``, else ``java`` on ``PATH``) as shipped.
DROPPED_VARIABLES = (
    "KOTLIN_JUPYTER_JAVA_EXECUTABLE",
    "KOTLIN_JUPYTER_JAVA_HOME",
    "KOTLIN_JUPYTER_JAVA_OPTS",
    "KOTLIN_JUPYTER_JAVA_OPTS_EXTRA",
    "JAVA_OPTS",
    "JAVA_TOOL_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "KOTLIN_LLM_JVM_OPTIONS",
    "KOTLIN_LLM_CLASSPATH",
    "KOTLIN_LLM_ENGINE_JARS",
    "KOTLIN_LLM_CDS",
    "KOTLIN_LLM_EARLY_START",
)

PACKAGES = ("kotlin-llm-kernel", "jupyter_client", "ipykernel", "pyzmq", "JPype1", "psutil")


def kernel_environment(java_home: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_VARIABLES}
    if java_home:
        env["JAVA_HOME"] = java_home
    return env


def load_average() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg()) + " (1 / 5 / 15 min)"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def machine() -> dict[str, str]:
    return {
        "nproc": str(os.cpu_count()),
        "cpu": _cpu_model(),
        "memory": f"{psutil.virtual_memory().total / 2**30:.1f} GiB",
        "os": platform.platform(),
    }


def jdk(env: Mapping[str, str]) -> str:
    """``java -version`` of the JDK the kernels will use (kotlin_llm_kernel's rule: JAVA_HOME, else PATH)."""
    try:
        from kotlin_llm_kernel.jvm.java_runtime import find_java

        java = find_java(env=env)
    except Exception as error:  # noqa: BLE001
        return f"not found ({error})"
    try:
        done = subprocess.run([str(java.home / "bin" / "java"), "-version"], capture_output=True, text=True, timeout=60)
        lines = (done.stderr or done.stdout).strip().splitlines()
    except (OSError, subprocess.TimeoutExpired) as error:
        lines = [f"java -version failed: {error}"]
    return "; ".join(lines)


def package_versions() -> dict[str, str]:
    versions: dict[str, str] = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_revision(repo: Path) -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True, text=True, timeout=30
        )
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    if head.returncode != 0:
        return "?"
    return head.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() else "")


def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (closed again: the server a bench starts binds it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
