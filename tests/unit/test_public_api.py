"""The engine's public package holds the specification's API and what hosts need, nothing of its implementation:
every type declared there is public; the session's implementation lives in `internal` packages."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = ROOT / "jvm" / "src" / "main" / "kotlin" / "org" / "kotlinllm" / "script"

_TYPE = re.compile(
    r"^((?:(?:public|internal|private|data|sealed|enum|abstract|open|value|fun|annotation)\s+)*)"
    r"(class|interface|object)\s+(\w+)",
    re.M,
)


def _top_level_types(path: Path) -> list[tuple[str, str]]:
    return [(match.group(3), match.group(1)) for match in _TYPE.finditer(path.read_text(encoding="utf-8"))]


def test_every_type_of_the_public_package_is_public() -> None:
    files = sorted(PUBLIC.glob("*.kt"))
    assert files, "no Kotlin file in the public package"
    hidden = [
        f"{path.name}: {name}"
        for path in files
        for name, modifiers in _top_level_types(path)
        if "public" not in modifiers.split()
    ]
    assert hidden == []


def test_the_public_package_holds_the_session_its_results_and_properties() -> None:
    declared = {name for path in PUBLIC.glob("*.kt") for name, _ in _top_level_types(path)}
    assert {"ScriptSession", "ScriptExecution", "ScriptResult", "ExecutionPhase", "ScriptProperty"} <= declared
    assert not declared & {"SnippetRunner", "SessionCore", "SnippetPipeline", "Completer", "SessionScope"}
