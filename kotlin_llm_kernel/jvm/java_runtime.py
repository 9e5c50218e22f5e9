"""Finding a Java runtime: ``JAVA_HOME`` first, then ``java`` on ``PATH``.

This module depends on the standard library only, so the build hook (``hatch_build.py``) can load it by path
before the package's dependencies are installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MINIMUM_JAVA = 17

INSTALL_HINT = (
    f"install a JDK {MINIMUM_JAVA} or newer (e.g. `apt-get install openjdk-{MINIMUM_JAVA}-jdk-headless`) "
    "and put its `java` on PATH or set JAVA_HOME to it"
)


class JavaNotFoundError(RuntimeError):
    """No usable Java runtime; the message says what to install."""


@dataclass(frozen=True)
class JavaRuntime:
    """A Java installation: its home directory, feature version (17, 21, 25, …) and JVM library."""

    home: Path
    version: int
    libjvm: Path

    def describe(self) -> str:
        return f"Java {self.version} at {self.home}"


def _libjvm(home: Path) -> Path | None:
    names = {"darwin": ["lib/server/libjvm.dylib", "lib/libjli.dylib"], "win32": ["bin/server/jvm.dll"]}
    for name in names.get(sys.platform, ["lib/server/libjvm.so"]):
        candidate = home / name
        if candidate.is_file():
            return candidate
    return None


def _parse_version(text: str) -> int | None:
    """The feature version of a version string: ``17.0.15`` → 17, ``1.8.0_402`` → 8, ``25`` → 25."""
    match = re.search(r"(\d+)(?:\.(\d+))?", text)
    if not match:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2):
        return int(match.group(2))
    return major


def _version_of(home: Path) -> int | None:
    release = home / "release"
    if release.is_file():
        for line in release.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("JAVA_VERSION="):
                return _parse_version(line.split("=", 1)[1].strip('"'))
    java = home / "bin" / ("java.exe" if sys.platform == "win32" else "java")
    if java.is_file():
        try:
            out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        match = re.search(r'version "([^"]+)"', out.stderr + out.stdout)
        if match:
            return _parse_version(match.group(1))
    return None


def _home_from_path(env: Mapping[str, str]) -> Path | None:
    java = shutil.which("java", path=env.get("PATH"))
    if java is None:
        return None
    home = Path(os.path.realpath(java)).parent.parent
    if home.name == "jre" and (home.parent / "bin").is_dir():  # JDK 8 layout
        home = home.parent
    return home


def inspect_home(home: Path) -> JavaRuntime:
    """The runtime at ``home``, or :class:`JavaNotFoundError` saying why it cannot be used."""
    libjvm = _libjvm(home)
    version = _version_of(home)
    if libjvm is None or version is None:
        raise JavaNotFoundError(f"{home} is not a Java installation (no JVM library found there): {INSTALL_HINT}.")
    if version < MINIMUM_JAVA:
        raise JavaNotFoundError(f"Java {version} at {home} is too old for Kotlin scripting: {INSTALL_HINT}.")
    return JavaRuntime(home=home, version=version, libjvm=libjvm)


def find_java(java_home: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> JavaRuntime:
    """The Java runtime to use: ``java_home`` if given, else ``JAVA_HOME``, else the ``java`` on ``PATH``."""
    env = os.environ if env is None else env
    if java_home:
        return inspect_home(Path(java_home))
    if env.get("JAVA_HOME"):
        return inspect_home(Path(env["JAVA_HOME"]))
    home = _home_from_path(env)
    if home is None:
        raise JavaNotFoundError(f"No Java found (JAVA_HOME is not set and there is no `java` on PATH): {INSTALL_HINT}.")
    return inspect_home(home)
