"""docs/architecture.md names only what exists: every file and folder it puts in backticks, every dotted name of the
package (``module.name``, ``Class.member``, read from the sources with ``ast``, nothing imported), every other name
of ours it spells, every package of its engine table and every thread of its threads table.

Kotlin files are checked by name only (some file of that name under ``jvm/src``), so that a file moved between the
engine's packages does not fail this test; the engine table's packages and the members of Kotlin classes are checked
against the engine's sources."""

from __future__ import annotations

import ast
import os
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import kotlin_llm_kernel
from test_package_layers import _edges

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
PACKAGE = Path(kotlin_llm_kernel.__file__).parent
JVM_SOURCES = ROOT / "jvm" / "src"
ENGINE = JVM_SOURCES / "main" / "kotlin" / "org" / "kotlinllm" / "script"
ENGINE_PACKAGE = "org.kotlinllm.script"

#: File extensions that make a backticked word a file name.
_FILE = re.compile(r"[\w.-]*\.(py|kt|kts|md|properties|sh|toml|ipynb)\Z")
_PATH = re.compile(r"[\w.-]+(/[\w.-]+)*/?\Z")
_DOTTED = re.compile(r"(?P<name>[A-Za-z_]\w*(\.[A-Za-z_]\w*)+)(\(.*\))?\Z")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*\Z")
_WORD = re.compile(r"[A-Za-z_]\w*")
#: Folders that only exist once something was built, named as the build makes them.
BUILT = {"sources/": "the engine jar's sources folder, made by the build"}
#: Names in backticks that are examples, not files or names of ours.
EXAMPLES = {
    "x-sources.jar",
    "x.jar",
    "text/plain",
    "Snippet1.mul",
    "settings.xml",
}
#: The first part of dotted names that are not ours: the JDK's, Kotlin's, and the reply's metadata key.
FOREIGN_ROOTS = {"System", "Runtime", "Thread", "Dispatchers", "Method", "MethodHandles", "java", "kotlin", "kotlinx"}
FOREIGN_ROOTS |= {"org"}  # the compiler's `org.jetbrains.kotlin` (the engine's own `org.kotlinllm.script` is checked)
FOREIGN_ROOTS |= {"kotlin_llm"}  # the reply metadata's key (`kotlin_llm.diagnostics`)
#: Names of the libraries and protocols the kernel works with (Jupyter, ipykernel, traitlets, papermill, asyncio,
#: the JDK, the JVM tool interface, Kotlin), which the doc names beside ours.
FOREIGN_NAMES = {
    "Application",
    "ForkJoinPool",
    "GetEnv",
    "InheritableThreadLocal",
    "JNI_GetCreatedJavaVMs",
    "NoSuchMethodError",
    "StopThread",
    "ThreadContextElement",
    "Translator",
    "compileImpl",
    "dynamic",
    "execute_input",
    "execute_notebook",
    "findStatic",
    "findVirtual",
    "inspect_notebook",
    "mypy",
    "parameterize_notebook",
    "translate_parameters",
    "unreflect",
}


def _section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _table_rows(title: str) -> list[list[str]]:
    """The rows of the first table of a section, as cells, header and rule left out."""
    rows = [line for line in _section(title).splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


@cache
def _source_files() -> list[Path]:
    """The repository's files, without what tools and builds put there (virtualenvs, build output, the bundled jars)."""
    skipped = {".git", ".venv", "build", "target", "node_modules", "__pycache__", "jars"}
    skipped |= {".pytest_cache", ".mypy_cache", ".ruff_cache"}
    found = []
    for folder, folders, files in os.walk(ROOT):
        folders[:] = [name for name in folders if name not in skipped]
        found += [Path(folder, name) for name in files]
    return found


@cache
def _folders() -> set[str]:
    """Every folder of the repository's sources as each tail of its path, with a slash (``policy/``,
    ``session/policy/``)."""
    found = set()
    for path in _source_files():
        parts = path.relative_to(ROOT).parts[:-1]
        for start in range(len(parts)):
            for end in range(start + 1, len(parts) + 1):
                found.add("/".join(parts[start:end]) + "/")
    return found


@cache
def _kotlin_names() -> set[str]:
    return {path.name for path in JVM_SOURCES.rglob("*.kt")}


@cache
def _python_modules() -> dict[str, list[Path]]:
    """The package's modules and subpackages by their last name (``kernel`` → ``jupyter/kernel.py``)."""
    found: dict[str, list[Path]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        found[path.parent.name if path.name == "__init__.py" else path.stem].append(path)
    return found


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _members(body: list[ast.stmt], imports: bool = False) -> dict[str, ast.AST]:
    """What a module or class body defines: functions, classes, assigned names, fields; with ``imports``, the names it
    imports too (what a package's ``__init__`` offers)."""
    found: dict[str, ast.AST] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign):
            found.update({target.id: node for target in node.targets if isinstance(target, ast.Name)})
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = node
        elif imports and isinstance(node, ast.ImportFrom | ast.Import):
            found.update({(alias.asname or alias.name).split(".")[0]: node for alias in node.names})
        elif isinstance(node, ast.If):  # `if TYPE_CHECKING:` imports
            found.update(_members(node.body, imports))
    return found


@cache
def _python_classes() -> dict[str, list[ast.ClassDef]]:
    found: dict[str, list[ast.ClassDef]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                found[node.name].append(node)
    return found


def _attribute_path(node: ast.AST, rest: list[str], package: bool = False) -> bool:
    """Whether the names of ``rest`` lead, member by member, from ``node`` (a module or class; a ``package``'s
    ``__init__`` also by what it imports) to a definition."""
    for index, name in enumerate(rest):
        if not isinstance(node, ast.Module | ast.ClassDef):
            return False
        member = _members(node.body, package and index == 0).get(name)
        if member is None:
            return False
        node = member
    return True


def _python_name(parts: list[str]) -> bool:
    """Whether ``module.name…`` or ``Class.member…`` (``remote.protocol.CommListener``, ``KotlinKernel._checked``)
    names a definition of the package."""
    for path in _python_modules().get(parts[0], []):
        node: ast.AST = _tree(path)
        for index, name in enumerate(parts[1:], start=1):
            sub = path.parent / name
            if path.name == "__init__.py" and (sub.with_suffix(".py").exists() or (sub / "__init__.py").exists()):
                path = sub.with_suffix(".py") if sub.with_suffix(".py").exists() else sub / "__init__.py"
                node = _tree(path)
                continue
            if _attribute_path(node, parts[index:], path.name == "__init__.py"):
                return True
            break
        else:
            return True
    return any(_attribute_path(cls, parts[1:]) for cls in _python_classes().get(parts[0], []))


@cache
def _kotlin_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(JVM_SOURCES.rglob("*.kt")))


@cache
def _kotlin_words() -> set[str]:
    return set(_WORD.findall(_kotlin_text()))


@cache
def _python_words() -> set[str]:
    return {word for path in PACKAGE.rglob("*.py") for word in _WORD.findall(path.read_text(encoding="utf-8"))}


def _kotlin_declares(name: str) -> bool:
    return (
        re.search(rf"\b(class|object|interface|typealias|fun)\s+(<[^>]*>\s*)?{re.escape(name)}\b", _kotlin_text())
        is not None
        or f"{name}.kt" in _kotlin_names()
    )


def _kotlin_name(parts: list[str]) -> bool:
    """Whether ``Class.member`` names a class (object, interface, file) of the engine and a member it has somewhere in
    the engine's sources (by name: a member may move between files)."""
    return _kotlin_declares(parts[0]) and all(part in _kotlin_words() for part in parts[1:])


def _engine_package(name: str) -> bool:
    """Whether a package of the engine table (``internal.compiler``, ``org.kotlinllm.script.host``, ``root``) is a
    folder of the engine's sources; ``x.*`` names the subpackages of ``x``."""
    relative = name.removeprefix(ENGINE_PACKAGE).lstrip(".")
    if name == "root" or relative == "":
        return ENGINE.is_dir()
    folder = ENGINE.joinpath(*relative.removesuffix(".*").split("."))
    if relative.endswith(".*"):
        return folder.is_dir() and any(child.is_dir() for child in folder.iterdir())
    return folder.is_dir()


def _file_problem(span: str) -> str | None:
    """What is wrong with a backticked file or folder name, if anything. A bare file name must name one file (of the
    package, if it has one of that name): ``cds.py`` alone could be either of two."""
    if span in BUILT or span in EXAMPLES:
        return None
    if span.endswith(".kt"):
        return None if Path(span).name in _kotlin_names() else "no Kotlin file of that name under jvm/src"
    if span.endswith("/"):
        return None if span in _folders() else "no such folder"
    if "/" in span:
        candidates = [ROOT / span, PACKAGE / span, ENGINE / span]
        return None if any(path.exists() for path in candidates) else "no such file"
    found = [path for path in _source_files() if path.name == span and PACKAGE in path.parents]
    found = found or [path for path in _source_files() if path.name == span]
    if not found:
        return "no such file"
    if len(found) > 1:
        return "names several files: " + ", ".join(str(path.relative_to(ROOT)) for path in sorted(found))
    return None


def _name_problem(span: str) -> str | None:
    """What is wrong with a backticked dotted name or identifier, if anything."""
    dotted = _DOTTED.match(span)
    if dotted:
        parts = dotted["name"].split(".")
        if span.startswith(ENGINE_PACKAGE) or parts[0] in {"internal", "dependencies"}:
            return None if _engine_package(span) else "no such engine package"
        if parts[0] in FOREIGN_ROOTS or span in EXAMPLES:
            return None
        if _python_name(parts) or _kotlin_name(parts):
            return None
        return "names nothing of the package or the engine"
    if _IDENTIFIER.match(span) and span not in FOREIGN_NAMES:
        known = span in _python_words() or span in _kotlin_words()
        return None if known else "occurs nowhere in the package's or the engine's sources"
    return None


def _problems(spans: list[str]) -> list[str]:
    problems = []
    for span in dict.fromkeys(spans):
        if _FILE.search(span) or (_PATH.match(span) and "/" in span):
            problem = _file_problem(span)
        else:
            problem = _name_problem(span)
        if problem:
            problems.append(f"`{span}`: {problem}")
    return problems


def test_every_file_and_name_the_doc_gives_exists() -> None:
    """Outside the Python package table (below), whose rows name files in their own package."""
    table = [line for line in _section("Python packages").splitlines() if line.startswith("|")]
    text = "\n".join(line for line in DOC.read_text(encoding="utf-8").splitlines() if line not in table)
    assert _problems(re.findall(r"`([^`\n]+)`", text)) == []


def test_the_python_package_table_names_the_files_of_each_package() -> None:
    """A row's bare file names are files of its package (the root's: at the top; a subpackage's: one file of that
    name in it or its subfolders); its other names are checked as elsewhere."""
    problems = []
    for cells in _table_rows("Python packages"):
        names = [name.strip("/") for name in re.findall(r"`([^`\n]+)`", cells[0])]
        assert len(names) <= 1, f"one package a row: {cells[0]}"
        folder = PACKAGE.joinpath(*names)
        assert folder.is_dir(), cells[0]
        for span in re.findall(r"`([^`\n]+)`", cells[1]):
            if _FILE.search(span) and "/" not in span:
                found = [folder / span] if not names else list(folder.rglob(span))
                if len([path for path in found if path.exists()]) != 1:
                    problems.append(f"{cells[0]}: `{span}`: not one file of {folder.relative_to(ROOT)}/")
            else:
                problems += [f"{cells[0]}: {problem}" for problem in _problems([span])]
    assert problems == []


def test_the_python_package_table_says_what_each_package_imports() -> None:
    """The "imports" column of a package's row lists the layers its modules import, as test_package_layers reads
    them ("the root" for the root's Python API)."""
    imported: dict[str, set[str]] = defaultdict(set)
    for source, target, _ in _edges():
        if source != target:
            imported[source].add(target)
    rows = {}
    for cells in _table_rows("Python packages"):
        folders = [name.strip("/") for name in re.findall(r"`([^`\n]+)`", cells[0])] or ["root"]
        assert len(folders) == 1, f"one package a row, so that its imports are its own: {cells[0]}"
        said = set(re.findall(r"`(\w+)`", cells[2])) | ({"root"} if "root" in cells[2] else set())
        rows[folders[0]] = said
    assert rows == dict(imported) | {layer: set() for layer in rows.keys() - imported.keys()}


def test_every_package_of_the_engine_table_is_a_folder_of_the_engine() -> None:
    missing = []
    for cells in _table_rows("Engine packages"):
        for name in re.findall(r"`([^`\n]+)`", cells[0]) + re.findall(r"`([^`\n]+)`", cells[2]):
            if not _engine_package(name):
                missing.append(name)
    assert missing == []


def test_every_thread_of_the_threads_table_is_named_in_the_code() -> None:
    python = "\n".join(path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py"))
    engine = "\n".join(path.read_text(encoding="utf-8") for path in (JVM_SOURCES / "main").rglob("*.kt"))
    threads = [
        name
        for cells in _table_rows("Threads, and who owns what")
        for name in re.findall(r"`([^`\n]+)`", cells[0].split("(")[0])
    ]
    assert len(threads) >= 10, threads
    # `kotlin-script-session-N`: the code appends the session's number
    unnamed = [name for name in threads if name.removesuffix("N") not in python + engine]
    assert unnamed == []


#: The behaviours issue 39's one-guess test asks for, each a row of the doc's "Where does X live".
ONE_GUESS = (
    "interrupt of a running cell",
    "`<error>` rendering",
    "a value's MIME bundle",
    "typed completion",
    "`%use`",
    "the DataFrame table",
    "column accessors",
    "import hints",
    "the MCP run's bounded output",
    "version-less resolution",
    "the cell time limit",
)


def test_where_does_x_live_names_an_existing_file_for_each_behaviour() -> None:
    rows = {row[0]: row[1:] for row in _table_rows("Where does X live")}
    assert set(ONE_GUESS) <= set(rows), sorted(set(ONE_GUESS) - set(rows))
    missing = [
        f"{behaviour}: {path}"
        for behaviour, cells in rows.items()
        for cell in cells
        for path in re.findall(r"`([^`]+/[^`]+)`", cell)
        if not (ROOT / path).is_file()
    ]
    assert missing == []
    assert all(re.search(r"`[^`]+/[^`]+`", cells[0]) for cells in rows.values()), "a row without a file"
