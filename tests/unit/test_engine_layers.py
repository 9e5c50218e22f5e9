"""The engine's packages as its imports draw them: no package imports one that imports it back (directly or through
others), only the compiler subtree imports the Kotlin compiler, and packages stay small enough to be read as one."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "jvm" / "src" / "main" / "kotlin"
BASE = "org.kotlinllm.script"
COMPILER = f"{BASE}.internal.compiler"
MAX_FILES = 12

_PACKAGE = re.compile(r"^package ([\w.]+)", re.M)
_IMPORT = re.compile(r"^import ([\w.]+)", re.M)


def _package_of(import_path: str) -> str:
    parts = import_path.split(".")
    while parts and (parts[-1][:1].isupper() or parts[-1] == "*"):
        parts.pop()
    return ".".join(parts)


def _files() -> dict[Path, tuple[str, list[str]]]:
    found = {}
    for path in sorted(SOURCES.rglob("*.kt")):
        text = path.read_text(encoding="utf-8")
        match = _PACKAGE.search(text)
        assert match, f"{path} declares no package"
        found[path] = (match.group(1), _IMPORT.findall(text))
    return found


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for package, imports in _files().values():
        graph[package]
        for imported in imports:
            target = _package_of(imported)
            if target.startswith(BASE) and target != package:
                graph[package].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                component.append(item)
                if item == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def test_the_engine_packages_import_one_way() -> None:
    graph = _package_graph()
    assert f"{BASE}.internal.compiler.completion" in graph, "the package scan found no engine sources"
    assert _cycles(graph) == []


def test_only_the_compiler_subtree_imports_the_kotlin_compiler() -> None:
    outside = sorted(
        f"{path.relative_to(SOURCES)}: {imported}"
        for path, (package, imports) in _files().items()
        for imported in imports
        if imported.startswith("org.jetbrains.kotlin.") and not package.startswith(COMPILER)
    )
    assert outside == []


def test_no_package_holds_more_than_twelve_files() -> None:
    counts: dict[str, int] = defaultdict(int)
    for package, _ in _files().values():
        counts[package] += 1
    crowded = {package: count for package, count in counts.items() if count > MAX_FILES}
    assert not crowded, crowded
