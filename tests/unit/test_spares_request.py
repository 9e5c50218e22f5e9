"""What a spare must share with a start to be handed to it (kotlin_llm_kernel.spares.request)."""

from __future__ import annotations

from pathlib import Path

from kotlin_llm_kernel.spares.request import (
    CONNECTION_FILE,
    ENV_SPARE,
    ENV_SPARE_DELAY,
    ENV_SPARE_ID,
    SpareRequest,
    kernel_argv,
    with_connection_file,
)

ARGV = ["python", "-m", "kotlin_llm_kernel", "-f", "{connection_file}"]
ENV = {"HOME": "/home/a", "PATH": "/usr/bin", "JPY_PARENT_PID": "1", "JPY_SESSION_NAME": "a.ipynb", "SHLVL": "1"}


def test_the_same_start_from_another_client_process_matches(tmp_path: Path) -> None:
    other_client = ENV | {"JPY_PARENT_PID": "2", "JPY_SESSION_NAME": "b.ipynb", "SHLVL": "3", "PWD": "/x"}
    assert SpareRequest.of(ARGV, ENV, tmp_path).signature == SpareRequest.of(ARGV, other_client, tmp_path).signature


def test_other_settings_environment_or_directory_do_not_match(tmp_path: Path) -> None:
    base = SpareRequest.of(ARGV, ENV, tmp_path).signature
    (tmp_path / "sub").mkdir()
    others = [
        SpareRequest.of([*ARGV, "--KotlinKernel.max_heap=512m"], ENV, tmp_path),
        SpareRequest.of(ARGV, ENV | {"KERNEL_MEMORY": "1g"}, tmp_path),
        SpareRequest.of(ARGV, {k: v for k, v in ENV.items() if k != "HOME"}, tmp_path),
        SpareRequest.of(ARGV, ENV, tmp_path / "sub"),
    ]
    assert base not in {other.signature for other in others}
    assert len({other.signature for other in others}) == len(others)


def test_a_directory_matches_by_its_real_path(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert SpareRequest.of(ARGV, ENV, tmp_path / "link").cwd == str((tmp_path / "real").resolve())


def test_a_spare_starts_marked_and_without_the_client_s_parent_pid(tmp_path: Path) -> None:
    env = SpareRequest.of(ARGV, ENV, tmp_path).kernel_env("s1", 2.5)
    assert (env[ENV_SPARE], env[ENV_SPARE_ID], env[ENV_SPARE_DELAY]) == ("1", "s1", "2.5")
    assert "JPY_PARENT_PID" not in env and env["HOME"] == "/home/a"


def test_a_spare_s_own_variables_do_not_change_its_signature(tmp_path: Path) -> None:
    spare = SpareRequest.of(ARGV, SpareRequest.of(ARGV, ENV, tmp_path).kernel_env("s1", 0), tmp_path)
    assert spare.signature == SpareRequest.of(ARGV, ENV, tmp_path).signature


def test_the_connection_file_is_what_a_kernelspec_says_in_every_spelling() -> None:
    for given in (["-f", "/run/k-1.json"], ["--f", "/run/k-1.json"], ["-f=/run/k-1.json"], ["--f=/run/k-1.json"]):
        argv, connection_file = kernel_argv([*given, "--KotlinKernel.max_heap=1g"])
        assert connection_file == "/run/k-1.json"
        assert CONNECTION_FILE in " ".join(argv) and "/run/k-1.json" not in " ".join(argv)
        assert argv[1:3] == ["-m", "kotlin_llm_kernel"] and argv[-1] == "--KotlinKernel.max_heap=1g"
        assert with_connection_file(argv, "/run/k-2.json")[3:] == [a.replace("1", "2") for a in [*given]] + [
            "--KotlinKernel.max_heap=1g"
        ]
    assert kernel_argv(["--KotlinKernel.max_heap=1g"]) == (
        [kernel_argv([])[0][0], "-m", "kotlin_llm_kernel", "--KotlinKernel.max_heap=1g"],
        None,
    )


def test_a_request_survives_its_json(tmp_path: Path) -> None:
    request = SpareRequest.of(ARGV, ENV, tmp_path)
    assert SpareRequest.from_json(request.to_json()) == request
