"""The notebook integrations the tests build, ``com.example:fx``, ``fxbroken`` and ``fxthrows`` 1.0, as a Maven
repository in ``build/integration-fixtures-m2`` that the Python tests serve to their kernels as a ``file:`` repository.

The setup step (``scripts/setup.sh``) builds it with the JVM tests' own builder, ``IntegrationFixtures``
(jvm/src/test/kotlin/org/kotlinllm/script/jupyterapi/IntegrationFixtures.kt, which says what each fixture does):
Kotlin sources compiled by the Kotlin compiler against the kernel API jars the engine ships. It runs from the engine
build the package's install made (``build/engine``: the test classes Maven compiled there, the engine jar and its
runtime jars, which hold the compiler), so nothing else is compiled, and it skips the work when its stamp matches.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = ROOT / "build" / "integration-fixtures-m2"
#: The package's engine build (hatch_build.py), whose Maven run compiles the test classes too.
ENGINE_BUILD = ROOT / "build" / "engine"
BUILDER = "org.kotlinllm.script.jupyterapi.IntegrationFixtures"

#: The same constants as IntegrationFixtures' (tests/unit/test_integration_fixture_constants.py holds them together).
FX = "com.example:fx:1.0"
FX_BROKEN = "com.example:fxbroken:1.0"
FX_THROWS = "com.example:fxthrows:1.0"
FX_PRODUCER = "com.example.fx.FxIntegration"
FX_BROKEN_PRODUCER = "com.example.fxbroken.FxBrokenIntegration"
FX_THROWS_PRODUCER = "com.example.fxthrows.FxThrowsIntegration"
#: what the link check says fxbroken needs
FX_BROKEN_MISSING = "KotlinKernelHost.missingForTest()"
FX_THROWS_MESSAGE = "fx failed on purpose"
FX_JS = "window.fxScript = 'fx.js loaded';\n"
FX_CDN_URL = "https://cdn.example/x.js"
FIXTURES = (FX, FX_BROKEN, FX_THROWS)

_STAMP = REPOSITORY / ".fixtures-stamp"


def jar(coordinates: str) -> Path:
    """The jar of one of :data:`FIXTURES` in :data:`REPOSITORY`."""
    group, artifact, version = coordinates.split(":")
    return REPOSITORY.joinpath(*group.split("."), artifact, version, f"{artifact}-{version}.jar")


def repository_url() -> str:
    """The fixtures as a repository, for a kernel's ``repositories`` setting or ``@file:Repository``."""
    missing = [coordinates for coordinates in FIXTURES if not jar(coordinates).is_file()]
    if not _STAMP.is_file() or missing:
        raise RuntimeError(f"the integration fixtures are not built in {REPOSITORY}: run scripts/setup.sh")
    return REPOSITORY.as_uri() + "/"


def _classpath() -> str:
    test_classes = ENGINE_BUILD / "test-classes"
    if not test_classes.joinpath(*BUILDER.split(".")).with_suffix(".class").is_file():
        raise SystemExit(
            f"no compiled {BUILDER} in {test_classes}: the package's install builds the engine there with its tests "
            "(scripts/setup-kernel.sh)"
        )
    engines = sorted(ENGINE_BUILD.glob("kotlin-llm-engine-*.jar"))
    return os.pathsep.join([str(test_classes), *map(str, engines), str(ENGINE_BUILD / "lib" / "*")])


def build() -> None:
    """Builds the fixtures into :data:`REPOSITORY`, unless its stamp says they are there."""
    from kotlin_llm_kernel.jvm.java_runtime import find_java

    java = find_java().home / "bin" / ("java.exe" if sys.platform == "win32" else "java")
    command = [str(java), "-cp", _classpath(), BUILDER, str(REPOSITORY)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"building the integration fixtures failed:\n{result.stdout}{result.stderr}")


if __name__ == "__main__":
    build()
    print(f"integration fixtures for the tests: {REPOSITORY}", file=sys.stderr)
