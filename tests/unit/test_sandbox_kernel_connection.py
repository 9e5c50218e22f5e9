"""The sandboxed kernel's launcher without a sandbox: the client's connection info rewritten for the kernel inside,
the launcher's arguments and environment, and the ``kotlin-llm-sandboxed`` kernelspec."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import kotlin_llm_kernel
import pytest
from kotlin_llm_kernel.install import main, sandboxed_kernel_spec
from kotlin_llm_kernel.sandbox.egress import LOOPBACK_ALIAS
from kotlin_llm_kernel.sandbox.kernel_launcher import (
    ENV_NETWORK,
    ENV_WORKSPACE,
    client_ports,
    copy_config_files,
    inner_connection,
    parse,
)

#: The checkout (the wheel's kernelspecs are beside the package).
ROOT = Path(kotlin_llm_kernel.__file__).resolve().parent.parent

CLIENT: dict[str, Any] = {
    "shell_port": 50001,
    "iopub_port": 50002,
    "stdin_port": 50003,
    "control_port": 50004,
    "hb_port": 50005,
    "ip": "127.0.0.1",
    "key": "a0436f6c-1916-498b-8eb9-e81ab9368e84",
    "transport": "tcp",
    "signature_scheme": "hmac-sha256",
    "kernel_name": "kotlin-llm-sandboxed",
}


def test_the_kernel_inside_binds_ipc_sockets_named_by_the_client_ports() -> None:
    assert inner_connection(CLIENT) == CLIENT | {"transport": "ipc", "ip": "/run/jupyter/k"}
    assert client_ports(CLIENT) == [50001, 50002, 50003, 50004, 50005]


def test_a_connection_file_without_transport_is_tcp() -> None:
    given = {name: value for name, value in CLIENT.items() if name != "transport"}
    assert inner_connection(given)["transport"] == "ipc"


def test_an_ipc_client_is_refused() -> None:
    with pytest.raises(ValueError) as error:
        inner_connection(CLIENT | {"transport": "ipc", "ip": "/tmp/kernel"})
    assert str(error.value) == "the client's connection file asks for transport 'ipc'; only tcp can be relayed"


def test_ports_the_launcher_cannot_listen_on_are_refused() -> None:
    with pytest.raises(ValueError) as error:
        inner_connection({name: value for name, value in CLIENT.items() if name != "stdin_port"} | {"hb_port": 0})
    assert str(error.value) == "the client's connection file has no port for stdin_port, hb_port"


def test_arguments_the_launcher_does_not_know_are_the_kernel_settings() -> None:
    settings = parse(
        ["-f", "/c.json", "--KotlinKernel.show_warnings=False", "--network", "none", "--workspace", "/w"], env={}
    )
    assert settings.connection_file == Path("/c.json")
    assert (settings.options.workspace, settings.options.network) == (Path("/w"), "none")
    assert settings.kernel_arguments == ("--KotlinKernel.show_warnings=False",)


def test_workspace_and_network_come_from_the_environment_unless_given() -> None:
    env = {ENV_WORKSPACE: "/from-env", ENV_NETWORK: "all"}
    from_env = parse(["-f", "/c.json"], env=env).options
    assert (from_env.workspace, from_env.network) == (Path("/from-env"), "all")
    given = parse(["-f", "/c.json", "--network", "none", "--workspace", "/w"], env=env).options
    assert (given.workspace, given.network) == (Path("/w"), "none")
    default = parse(["-f", "/c.json"], env={ENV_WORKSPACE: ""}).options
    assert (default.workspace, default.network) == (None, "maven")


def test_an_unknown_network_in_the_environment_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse(["-f", "/c.json"], env={ENV_NETWORK: "some"})
    assert exit_info.value.code == 2
    assert "KOTLIN_LLM_SANDBOX_NETWORK must be one of maven, none, all, not 'some'" in capsys.readouterr().err


def test_the_sandboxed_kernelspec_runs_the_launcher_with_message_interrupts() -> None:
    spec = sandboxed_kernel_spec(["--KotlinKernel.show_warnings=False"], python="/opt/python")
    assert spec["argv"] == [
        "/opt/python",
        "-m",
        "kotlin_llm_kernel.sandbox.kernel_launcher",
        "-f",
        "{connection_file}",
        "--KotlinKernel.show_warnings=False",
    ]
    assert (spec["display_name"], spec["language"], spec["interrupt_mode"]) == (
        "Kotlin (LLM, sandboxed)",
        "kotlin",
        "message",
    )


def test_the_wheel_kernelspec_is_the_installed_one_with_python_on_path() -> None:
    shipped = json.loads((ROOT / "kernelspec-sandboxed" / "kernel.json").read_text(encoding="utf-8"))
    assert shipped == sandboxed_kernel_spec(python="python")


def test_install_puts_the_sandboxed_kernelspec_beside_the_kernel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
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
    kernels = tmp_path / "share" / "jupyter" / "kernels"
    assert sorted(p.name for p in kernels.iterdir()) == ["kotlin-test", "kotlin-test-sandboxed"]
    spec = json.loads((kernels / "kotlin-test-sandboxed" / "kernel.json").read_text(encoding="utf-8"))
    assert spec == sandboxed_kernel_spec(["--KotlinKernel.jvm_options=-Xmx2g"], python=sys.executable)
    assert sorted(p.name for p in (kernels / "kotlin-test-sandboxed").glob("logo-*.png")), "with the logos"
    assert "and kotlin-test-sandboxed beside it" in capsys.readouterr().out


def test_the_kernel_repositories_reach_the_proxy_and_are_named_for_inside() -> None:
    items = [
        f"--KotlinKernel.repositories={url}" for url in ("http://127.0.0.1:8123/maven/", "https://repo.example.com/m2/")
    ]
    settings = parse(["-f", "/c.json", *items, "--KotlinKernel.show_warnings=False"], env={})
    assert settings.options.repositories == ("http://127.0.0.1:8123/maven/", "https://repo.example.com/m2/")
    assert settings.kernel_arguments == (
        "--KotlinKernel.show_warnings=False",
        f"--KotlinKernel.repositories=http://{LOOPBACK_ALIAS}:8123/maven/",
        "--KotlinKernel.repositories=https://repo.example.com/m2/",
    )


def test_a_listed_repository_setting_still_works_and_is_passed_on_as_items() -> None:
    listed = '--KotlinKernel.repositories=["http://127.0.0.1:8123/maven/", "https://repo.example.com/m2/"]'
    with pytest.warns(DeprecationWarning, match="for containers is deprecated in traitlets 5.0"):  # traitlets' own
        settings = parse(["-f", "/c.json", listed], env={})
    assert settings.options.repositories == ("http://127.0.0.1:8123/maven/", "https://repo.example.com/m2/")
    assert settings.kernel_arguments == (  # the form the kernel inside reads without a warning
        f"--KotlinKernel.repositories=http://{LOOPBACK_ALIAS}:8123/maven/",
        "--KotlinKernel.repositories=https://repo.example.com/m2/",
    )


def test_a_repeated_repository_setting_adds_items_as_in_the_kernel() -> None:
    arguments = ["--KotlinKernel.repositories=http://localhost:9000/", "--KotlinKernel.repositories=https://r.test/"]
    settings = parse(["-f", "/c.json", *arguments], env={})
    assert settings.options.repositories == ("http://localhost:9000/", "https://r.test/")
    assert settings.kernel_arguments == (
        f"--KotlinKernel.repositories=http://{LOOPBACK_ALIAS}:9000/",
        "--KotlinKernel.repositories=https://r.test/",
    )


def test_repositories_of_a_kernel_config_file_reach_the_proxy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = {"KotlinKernel": {"repositories": ["http://127.0.0.1:8123/"]}}
    (tmp_path / "kotlin_llm_kernel_config.json").write_text(json.dumps(settings), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(tmp_path))
    launched = parse(["-f", "/c.json"], env={})
    assert launched.options.repositories == ("http://127.0.0.1:8123/",)
    assert launched.kernel_arguments == (f"--KotlinKernel.repositories=http://{LOOPBACK_ALIAS}:8123/",)


def test_without_repositories_the_kernel_arguments_stay() -> None:
    arguments = ["--KotlinKernel.show_warnings=False", "--KotlinKernel.local_repository=/w/m2"]
    settings = parse(["-f", "/c.json", *arguments], env={})
    assert (settings.options.repositories, settings.kernel_arguments) == ((), tuple(arguments))


def test_a_repository_given_after_the_setting_counts_too() -> None:
    settings = parse(["-f", "/c.json", "--KotlinKernel.repositories", "http://localhost:9000/"], env={})
    assert settings.options.repositories == ("http://localhost:9000/",)
    assert settings.kernel_arguments == (f"--KotlinKernel.repositories=http://{LOOPBACK_ALIAS}:9000/",)


def test_the_kernel_config_files_are_copied_for_inside_in_their_order(tmp_path: Path) -> None:
    user, empty, system = (tmp_path / name for name in ("user", "empty", "system"))
    for folder in (user, empty, system):
        folder.mkdir()
    (user / "kotlin_llm_kernel_config.json").write_text('{"KotlinKernel": {"show_warnings": false}}')
    (user / "jupyter_server_config.json").write_text('{"ServerApp": {"token": "secret"}}')
    (system / "kotlin_llm_kernel_config.py").write_text("c.KotlinKernel.show_warnings = True\n")
    copies = tmp_path / "copies"
    copies.mkdir()
    inside = copy_config_files(copies, [str(user), str(empty), str(system), str(tmp_path / "missing")])
    assert inside == ["/run/kotlin-llm-config/0", "/run/kotlin-llm-config/2"]
    assert sorted(str(p.relative_to(copies)) for p in copies.rglob("*")) == [
        "0",
        "0/kotlin_llm_kernel_config.json",
        "2",
        "2/kotlin_llm_kernel_config.py",
    ], "only the kernel's own files: no other configuration (and its secrets) goes in"
    assert (copies / "2" / "kotlin_llm_kernel_config.py").read_text() == "c.KotlinKernel.show_warnings = True\n"
    assert (copies / "0" / "kotlin_llm_kernel_config.json").stat().st_mode & 0o777 == 0o644
