"""Build hook: runs the Maven build of jvm/ and bundles the engine jar with its runtime jars into the package.

Layout inside the package (``kotlin_llm_kernel/jars/``)::

    kotlin-llm-engine-<version>.jar   the engine
    lib/*.jar                         its runtime dependencies
    resolver-lib/*.jar                the isolated dependency resolver, when the engine build produces one
    sources/*-sources.jar             sources whose KDoc inspection shows (the standard library's), not on the classpath
    compiler-plugins/*.jar            compiler plugins every session compiles with (kotlinx.serialization's)

A wheel gets the jars as force-included files; an editable install copies them into the source tree (ignored by
git). Maven is skipped when the last build output is newer than every file of jvm/ (``KOTLIN_LLM_FORCE_MAVEN=1``
forces it).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

JAR_SUBDIRS = ("lib", "resolver-lib", "sources", "compiler-plugins")


def _load_module(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _load_java_finder(root: Path) -> Any:
    return _load_module("_kotlin_llm_java", root / "kotlin_llm_kernel" / "jvm" / "java_runtime.py")


def _install_jupyter_api(root: Path, mvn: str, log: Any) -> None:
    """JetBrains' kernel API jars the engine depends on, installed from their PyPI wheel where Maven lacks them."""
    jars = _load_module("_kotlin_llm_jupyter_api", root / "scripts" / "jupyter_api_jars.py")
    try:
        jars.ensure_installed(mvn=mvn, log=log)
    except jars.JupyterApiInstallError as error:
        raise RuntimeError(f"Building kotlin-llm-kernel needs JetBrains' Kotlin kernel API jars: {error}") from None


def _newest_source(jvm: Path) -> float:
    newest = (jvm / "pom.xml").stat().st_mtime
    for path in (jvm / "src").rglob("*"):
        if path.is_file():
            newest = max(newest, path.stat().st_mtime)
    return newest


def _engine_jar(out: Path) -> Path | None:
    jars = sorted(out.glob("kotlin-llm-engine-*.jar"))
    return jars[-1] if jars else None


def build_engine(root: Path, log: Any = print) -> Path:
    """Runs Maven unless its output is up to date; returns the build directory holding the jars."""
    jvm = root / "jvm"
    out = root / "build" / "engine"
    jar = _engine_jar(out)
    if jar and jar.stat().st_mtime >= _newest_source(jvm) and not os.environ.get("KOTLIN_LLM_FORCE_MAVEN"):
        log(f"kotlin-llm: engine jars are up to date in {out}")
        return out
    java = _load_java_finder(root)
    try:
        runtime = java.find_java()
    except java.JavaNotFoundError as error:
        raise RuntimeError(f"Building kotlin-llm-kernel needs a JDK: {error}") from None
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RuntimeError(
            "Building kotlin-llm-kernel from source needs Maven 3.8 or newer to compile its Kotlin engine: "
            "install it (e.g. `apt-get install maven`) and put `mvn` on PATH, or install a prebuilt wheel instead."
        )
    _install_jupyter_api(root, mvn, log)
    for sub in JAR_SUBDIRS:  # stale jars of older dependency versions must not be bundled
        shutil.rmtree(out / sub, ignore_errors=True)
    env = dict(os.environ, JAVA_HOME=str(runtime.home))
    command = [mvn, "-B", "-q", "-f", str(jvm / "pom.xml"), "package", "-DskipTests", f"-Dengine.build.dir={out}"]
    log(f"kotlin-llm: building the engine with {runtime.describe()}: {' '.join(command)}")
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-20000:] + result.stderr[-20000:])
        raise RuntimeError(f"The Maven build of the engine failed (exit {result.returncode}); its output is above.")
    if _engine_jar(out) is None:
        raise RuntimeError(f"The Maven build produced no kotlin-llm-engine jar in {out}.")
    return out


def bundled_files(out: Path) -> dict[Path, str]:
    """Each jar to bundle, mapped to its path relative to the package's ``jars/`` directory."""
    jar = _engine_jar(out)
    assert jar is not None
    files = {jar: jar.name}
    for sub in JAR_SUBDIRS:
        for path in sorted((out / sub).glob("*.jar")):
            files[path] = f"{sub}/{path.name}"
    return files


class EngineBuildHook(BuildHookInterface):
    """Hatch hook ``custom``: bundles the engine into wheels and editable installs."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        out = build_engine(root, log=self.app.display_info)
        files = bundled_files(out)
        if version == "editable":
            target = root / "kotlin_llm_kernel" / "jars"
            shutil.rmtree(target, ignore_errors=True)
            for source, relative in files.items():
                (target / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / relative)
            return
        for source, relative in files.items():
            build_data["force_include"][str(source)] = f"kotlin_llm_kernel/jars/{relative}"
