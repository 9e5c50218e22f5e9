"""The catalogue of error names (kotlin_llm_kernel/session/errors.py): README.md's table says the same, the engine's
names are the same, and no other module spells a name out instead of using its constant."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import kotlin_llm_kernel
from kotlin_llm_kernel.session import errors

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(kotlin_llm_kernel.__file__).parent
HOST_OUTCOME = ROOT / "jvm/src/main/kotlin/org/kotlinllm/script/host/HostOutcome.kt"


def _readme_table() -> dict[str, str]:
    """The rows of the table under README.md's "Error names": name -> meaning."""
    section = ROOT.joinpath("README.md").read_text(encoding="utf-8").split("\n## Error names\n", 1)[1].split("\n## ")[0]
    rows = re.findall(r"^\| `(\w+)` \| (.+) \|$", section, flags=re.MULTILINE)
    return {name: meaning for name, meaning in rows if name != "ename"}  # not the header


def test_the_readme_table_is_the_catalogue() -> None:
    assert _readme_table() == errors.CATALOGUE


def test_the_catalogue_has_nine_names_each_with_its_constant() -> None:
    constants = {value for name, value in vars(errors).items() if name.isupper() and isinstance(value, str)}
    assert len(errors.CATALOGUE) == 9
    assert constants == set(errors.CATALOGUE) | {errors.NOT_RUN}


def test_the_engine_gives_the_names_the_catalogue_has() -> None:
    source = HOST_OUTCOME.read_text(encoding="utf-8")
    engine = dict(re.findall(r'const val (\w+_ERROR): String = "(\w+)"', source))
    assert engine == {"COMPILATION_ERROR": errors.COMPILATION_ERROR, "EVALUATION_ERROR": errors.EVALUATION_ERROR}


def test_no_other_module_spells_a_name_out() -> None:
    names = set(errors.CATALOGUE) | {errors.NOT_RUN}
    spelled = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PACKAGE / "session" / "errors.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in names
    ]
    assert spelled == []
