"""tests/integration_fixtures.py names the fixtures as the JVM tests' builder does (IntegrationFixtures.kt): each of
the builder's constants, read from its source, has the same value on the Python side."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
BUILDER = ROOT / "jvm/src/test/kotlin/org/kotlinllm/script/jupyterapi/IntegrationFixtures.kt"

#: `const val NAME: String = "value"`, a Kotlin string literal whose only escape is `\n`
_CONSTANT = re.compile(r'const val (\w+): String = "((?:[^"\\]|\\n)*)"')


def _fixtures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("integration_fixtures", ROOT / "tests" / "integration_fixtures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_python_constants_are_the_builders() -> None:
    fixtures = _fixtures()
    constants = {name: value.replace("\\n", "\n") for name, value in _CONSTANT.findall(BUILDER.read_text("utf-8"))}
    assert {"FX", "FX_BROKEN", "FX_THROWS", "FX_BROKEN_MISSING", "STAMP"} <= constants.keys(), constants
    python = {name: getattr(fixtures, name, None) for name in constants} | {"STAMP": fixtures._STAMP.name}
    assert python == constants
    assert fixtures.FIXTURES == (fixtures.FX, fixtures.FX_BROKEN, fixtures.FX_THROWS)
    assert fixtures.BUILDER == "org.kotlinllm.script.jupyterapi." + BUILDER.stem
