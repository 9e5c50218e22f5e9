"""The anchor: JetBrains' Kotlin kernel from PyPI, installed into a venv of its own by the benchmark."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "kotlin-jupyter-kernel"
VERSION = "0.19.0.944"
KERNEL_NAME = "kotlin"
INSTALL_TIMEOUT_SECONDS = 900.0


@dataclass(frozen=True)
class AnchorInstall:
    python: Path
    kernelspec: Path
    version: str
    installed_seconds: float | None  # None: it was already there


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def installed_version(python: Path) -> str | None:
    """The version of the anchor package in the venv of ``python``, or None."""
    if not python.is_file():
        return None
    probe = f"import importlib.metadata as m; print(m.version({PACKAGE!r}))"
    try:
        done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def ensure_anchor(venv: Path, version: str = VERSION) -> AnchorInstall:
    """Creates ``venv`` and installs the anchor into it from PyPI unless that exact version is already there.

    Raises RuntimeError with pip's output when the installation fails.
    """
    python = venv_python(venv)
    began = time.monotonic()
    installed_now = False
    if installed_version(python) != version:
        if not python.is_file():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", f"{PACKAGE}=={version}"],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_SECONDS,
        )
        if done.returncode != 0:
            raise RuntimeError(f"pip install {PACKAGE}=={version} failed:\n{done.stdout}\n{done.stderr}")
        installed_now = True
    kernelspec = venv / "share" / "jupyter" / "kernels" / KERNEL_NAME
    if not (kernelspec / "kernel.json").is_file():
        raise RuntimeError(f"{PACKAGE} {version} installed no kernelspec at <venv>/share/jupyter/kernels/{KERNEL_NAME}")
    return AnchorInstall(python, kernelspec, version, time.monotonic() - began if installed_now else None)
