"""The kernel's configuration, read once from its config files and arguments
(kotlin_llm_kernel.config.kernel_config)."""

from __future__ import annotations

from pathlib import Path

import pytest
from kotlin_llm_kernel.config.kernel_config import CONFIG_FILE, load, split_arguments


def test_kernel_arguments_are_split_from_ipykernels_with_their_values() -> None:
    argv = ["-f", "conn.json", "--KotlinKernel.jvm_options", "-Xmx1g", "--KotlinKernel.show_warnings=False", "--debug"]
    kernel, others = split_arguments(argv)
    assert kernel == ["--KotlinKernel.jvm_options", "--KotlinKernel.show_warnings=False"]
    assert others == ["-f", "conn.json", "-Xmx1g", "--debug"]


def test_a_value_given_as_the_next_argument_stays_with_its_setting() -> None:
    kernel, others = split_arguments(["--KotlinKernel.properties", "greeting=Hello", "-f", "c.json"])
    assert kernel == ["--KotlinKernel.properties", "greeting=Hello"]
    assert others == ["-f", "c.json"]


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", "")
    monkeypatch.setenv("JUPYTER_NO_CONFIG", "")
    return tmp_path


def test_the_config_file_is_read_and_arguments_win_over_it(config_dir: Path) -> None:
    (config_dir / f"{CONFIG_FILE}.py").write_text(
        "c.KotlinKernel.jvm_options = ['-Xmx1g']\n"
        "c.KotlinKernel.show_warnings = False\n"
        "c.KotlinKernel.properties = {'greeting': 'file'}\n"
    )
    loaded = load(["-f", "conn.json", "--KotlinKernel.properties", "greeting=argument"])
    assert loaded.other_arguments == ["-f", "conn.json"]
    assert loaded.request.jvm.options == ("-Xmx1g",)
    assert dict(loaded.request.session.properties) == {"greeting": "argument"}
    assert loaded.config.KotlinKernel.show_warnings is False


def test_without_files_or_arguments_the_request_has_the_defaults(config_dir: Path) -> None:
    loaded = load([])
    assert loaded.request.jvm.options == ()
    assert loaded.request.session.local_repository is None
    assert loaded.request.session.repositories == ()
    assert dict(loaded.request.session.properties) == {}


def test_a_malformed_argument_is_an_error(config_dir: Path) -> None:
    with pytest.raises(Exception, match="properties"):
        load(["--KotlinKernel.properties", "no-equals-sign"])
