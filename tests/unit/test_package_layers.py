"""The package's layers (kotlin_llm_kernel/*/): every import between subpackages goes downwards, read from the source
(imports inside functions and under TYPE_CHECKING count too), and the root stays the public face."""

from __future__ import annotations

import ast
from pathlib import Path

import kotlin_llm_kernel

PACKAGE = Path(kotlin_llm_kernel.__file__).parent
#: Each layer may import those ranked lower; the root is the public face (API, ``python -m`` commands).
RANK = {"jvm": 0, "config": 1, "session": 2, "jupyter": 3, "root": 4}
#: Beside the layers: they may import any layer, and nothing in the package imports them.
SIDE = {"mcp", "papermill", "remote"}
#: The Python API runs a session as the kernel does, but never through the kernel.
API = f"{PACKAGE.name}.api"
#: Names any module may read from the package's ``__init__``, which imports nothing when it loads.
INIT_NAMES = {"__version__"}


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in RANK.keys() | SIDE else "root"


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, set[str]]]:
    """The package's modules ``path`` imports, each with the names it takes from it (none: the module itself)."""
    module = _module(path).split(".")
    here = module if path.name == "__init__.py" else module[:-1]
    found: list[tuple[str, set[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, set()) for alias in node.names if alias.name.split(".")[0] == PACKAGE.name]
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            if target.split(".")[0] != PACKAGE.name:
                continue
            for alias in node.names:  # `from .session import early` imports a module, not a name
                sub = PACKAGE.joinpath(*target.split(".")[1:], alias.name)
                if sub.with_suffix(".py").exists() or (sub / "__init__.py").exists():
                    found.append((f"{target}.{alias.name}", set()))
                else:
                    found.append((target, {alias.name}))
    return found


def _edges() -> list[tuple[str, str, str]]:
    edges = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for target, names in _imports(path):
            source = _module(path)
            if target == PACKAGE.name and source != PACKAGE.name:
                assert names and names <= INIT_NAMES, f"{source} imports {names or 'it'} from the package's __init__"
                continue
            edges.append((_layer(source), _layer(target), f"{source} -> {target}"))
    return edges


def test_imports_between_layers_go_downwards() -> None:
    upward = [
        where
        for source, target, where in _edges()
        if source != target
        and (
            target in SIDE
            or (source not in SIDE and RANK[target] >= RANK[source])
            or (where.startswith(f"{API} ") and target == "jupyter")
        )
    ]
    assert upward == []


def test_the_layers_import_one_another_without_a_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for source, target, _ in _edges():
        if source != target:
            graph.setdefault(source, set()).add(target)
    done: set[str] = set()

    def visit(layer: str, trail: tuple[str, ...]) -> None:
        assert layer not in trail, f"cycle: {' -> '.join((*trail, layer))}"
        if layer not in done:
            for target in graph.get(layer, ()):
                visit(target, (*trail, layer))
            done.add(layer)

    for layer in graph:
        visit(layer, ())


def test_no_package_holds_more_than_twelve_modules() -> None:
    crowded = {
        str(folder.relative_to(PACKAGE.parent)): count
        for folder in [PACKAGE, *(path.parent for path in PACKAGE.rglob("__init__.py"))]
        if (count := len(list(folder.glob("*.py")))) > 12
    }
    assert crowded == {}


def test_the_run_policy_sits_above_the_rest_of_the_session() -> None:
    policy = f"{PACKAGE.name}.session.policy"
    upward = [
        where
        for source, target, where in _edges()
        if source == target == "session"
        and where.split(" -> ")[1].startswith(policy)
        and not where.split(" -> ")[0].startswith(policy)
    ]
    assert upward == []


def test_each_subpackage_says_what_it_is() -> None:
    for sub in sorted(RANK.keys() - {"root"} | SIDE):
        docstring = ast.get_docstring(ast.parse((PACKAGE / sub / "__init__.py").read_text(encoding="utf-8")))
        assert docstring and "import" in docstring, sub
