"""The libraries the tests fetch (tests/libraries.py) are those of the engine's catalogue of libraries
(internal/libraries/Libraries.kt): each artifact the catalogue names is fetched, or said why not, and nothing else is
fetched. A library added to the catalogue fails here until the tests can load it."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "jvm/src/main/kotlin/org/kotlinllm/script/internal/libraries/Libraries.kt"

#: a string literal that is a version-less Maven coordinate, `"group:artifact"`
_COORDINATES = re.compile(r'"([\w.-]+:[\w.-]+)"')


def _libraries() -> ModuleType:
    spec = importlib.util.spec_from_file_location("libraries", ROOT / "tests" / "libraries.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _catalogue() -> set[str]:
    return set(_COORDINATES.findall(CATALOGUE.read_text(encoding="utf-8")))


def test_the_catalogue_is_found() -> None:
    assert {"org.jetbrains.kotlinx:dataframe", "org.jsoup:jsoup", "io.ktor:ktor-client-cio"} <= _catalogue()


def test_the_fetched_libraries_are_the_catalogue() -> None:
    libraries = _libraries()
    fetched = {":".join(coordinates.split(":")[:2]) for coordinates in libraries.LIBRARIES}
    not_fetched = set(libraries.NOT_FETCHED)
    assert fetched.isdisjoint(not_fetched), fetched & not_fetched
    assert sorted(_catalogue() - fetched - not_fetched) == [], "in the catalogue, neither fetched nor said why not"
    assert sorted((fetched | not_fetched) - _catalogue()) == [], "in tests/libraries.py, not in the catalogue"
