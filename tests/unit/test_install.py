"""The kernelspec and the installer's arguments (kotlin_llm_kernel.install), installing into temporary prefixes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from kotlin_llm_kernel.install import kernel_spec, main


def test_the_kernel_spec_runs_this_python_with_message_interrupts() -> None:
    spec = kernel_spec()
    assert spec["argv"] == [sys.executable, "-m", "kotlin_llm_kernel", "-f", "{connection_file}"]
    assert (spec["language"], spec["interrupt_mode"]) == ("kotlin", "message")
    assert spec["metadata"] == {"debugger": False}


def test_settings_and_another_python_go_into_argv() -> None:
    spec = kernel_spec(["--KotlinKernel.show_warnings=False"], python="/opt/python")
    assert spec["argv"] == [
        "/opt/python",
        "-m",
        "kotlin_llm_kernel",
        "-f",
        "{connection_file}",
        "--KotlinKernel.show_warnings=False",
    ]


def test_install_into_a_prefix_with_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(
        [
            "--prefix",
            str(tmp_path),
            "--name",
            "kotlin-test",
            "--KotlinKernel.jvm_options=-Xmx2g",
            "--no-class-data-sharing",
        ]
    )
    spec_file = tmp_path / "share" / "jupyter" / "kernels" / "kotlin-test" / "kernel.json"
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    assert spec["argv"][-1] == "--KotlinKernel.jvm_options=-Xmx2g"
    assert "Installed the kotlin-test kernelspec in" in capsys.readouterr().out
    assert sorted(p.name for p in spec_file.parent.glob("logo-*.png")), "the logos are copied along"


@pytest.mark.parametrize(
    "arguments",
    [["--not-a-setting"], ["--Other.x=1"], ["--user", "--sys-prefix"], ["--user", "--prefix", "PREFIX"]],
    ids=["unknown option", "another class's setting", "user and sys-prefix", "user and prefix"],
)
def test_wrong_arguments_are_refused_before_installing(
    arguments: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = str(tmp_path)
    # into the temporary prefix, should the arguments be taken after all
    given = (
        [prefix if a == "PREFIX" else a for a in arguments]
        if "--user" in arguments
        else [*arguments, "--prefix", prefix]
    )
    with pytest.raises(SystemExit) as exit_info:
        main(given)
    assert exit_info.value.code == 2
    assert "python -m kotlin_llm_kernel install" in capsys.readouterr().err
    assert not (tmp_path / "share").exists()
