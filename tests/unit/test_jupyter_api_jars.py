"""scripts/jupyter_api_jars.py, the parts that need no network: where the local Maven repository is, what it lacks,
and which jars of a kernel wheel are JetBrains' API."""

from __future__ import annotations

import importlib.util
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "jupyter_api_jars.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("jupyter_api_jars", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


jars = _module()


def test_local_repository_is_maven_options_one_or_the_settings_one_or_the_default(tmp_path: Path) -> None:
    assert jars.local_repository(tmp_path, {}) == tmp_path / ".m2" / "repository"
    options = {"MAVEN_OPTS": f"-Xmx1g -Dmaven.repo.local={tmp_path / 'opts'}"}
    assert jars.local_repository(tmp_path, options) == tmp_path / "opts"
    (tmp_path / ".m2").mkdir()
    (tmp_path / ".m2" / "settings.xml").write_text(
        '<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">'
        f"<localRepository> {tmp_path / 'm2'} </localRepository></settings>"
    )
    assert jars.local_repository(tmp_path, {}) == tmp_path / "m2"


def test_missing_names_the_artifacts_without_jar_and_pom(tmp_path: Path) -> None:
    assert jars.missing(tmp_path) == ["kotlin-jupyter-api", "kotlin-jupyter-protocol-api"]
    jar = jars.installed_jar(tmp_path, "kotlin-jupyter-api")
    assert jar == tmp_path / "org/jetbrains/kotlinx/kotlin-jupyter-api/0.19.0-944/kotlin-jupyter-api-0.19.0-944.jar"
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"jar")
    assert jars.missing(tmp_path) == ["kotlin-jupyter-api", "kotlin-jupyter-protocol-api"]
    jar.with_suffix(".pom").write_text("<project/>")
    assert jars.missing(tmp_path) == ["kotlin-jupyter-protocol-api"]


def _wheel(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            archive.writestr(name, name)
    return path


def test_the_api_jars_are_taken_from_the_wheel_by_file_name(tmp_path: Path) -> None:
    wheel = _wheel(
        tmp_path / "kernel.whl",
        [
            "run_kotlin_kernel/jars/api-0.19.0-944.jar",
            "run_kotlin_kernel/jars/protocol-api-0.19.0-944.jar",
            "run_kotlin_kernel/jars/lib-0.19.0-944.jar",
        ],
    )
    out = tmp_path / "out"
    out.mkdir()
    extracted = jars.jars_from_wheel(wheel, out)
    assert {artifact: path.name for artifact, path in extracted.items()} == {
        "kotlin-jupyter-api": "api-0.19.0-944.jar",
        "kotlin-jupyter-protocol-api": "protocol-api-0.19.0-944.jar",
    }
    assert extracted["kotlin-jupyter-api"].read_text() == "run_kotlin_kernel/jars/api-0.19.0-944.jar"


def test_a_wheel_without_the_jars_fails_naming_the_jar(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path / "kernel.whl", ["run_kotlin_kernel/jars/api-0.19.0-944.jar"])
    with pytest.raises(jars.JupyterApiInstallError, match=r"exactly one protocol-api-0\.19\.0-944\.jar, it holds 0"):
        jars.jars_from_wheel(wheel, tmp_path)
