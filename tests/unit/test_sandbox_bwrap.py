"""The sandbox's command line, built from a given place (no bwrap runs): what is bound, how, and what is left out."""

from __future__ import annotations

from pathlib import Path

import pytest
from kotlin_llm_kernel.mcp.__main__ import parse
from kotlin_llm_kernel.mcp.sandboxed import inner_arguments
from kotlin_llm_kernel.sandbox.bwrap import Place, group_text, hosts_text, passwd_text, sandboxed_command
from kotlin_llm_kernel.sandbox.egress import inside_url
from kotlin_llm_kernel.sandbox.host import SandboxUnavailable, sandbox_user
from kotlin_llm_kernel.sandbox.layout import Bind, Limits, SandboxOptions

RUN = Path("/run-dir")
WORKSPACE = Path("/work/space")
PLACE = Place(
    run_dir=RUN,
    workspace=WORKSPACE,
    python="/usr/bin/python3.11",
    python_path=("/checkout", "/venv/site-packages"),
    read_only=(Bind(Path("/checkout/kotlin_llm_kernel")), Bind(Path("/venv/site-packages"))),
    java_net_properties="/etc/java-17-openjdk/net.properties",
    env={"JAVA_HOME": "/usr/lib/jvm/java-17"},
    drop=("/usr/bin/setpriv", "--reuid=999", "--regid=995", "--init-groups", "--"),
    bwrap="/usr/bin/bwrap",
)
HOST_ENV = {"HOME": "/root", "GITHUB_TOKEN": "secret", "AWS_SECRET_ACCESS_KEY": "x", "LANG": "en_US.UTF-8"}


def pairs(argv: list[str], option: str) -> list[tuple[str, str]]:
    """The (source, destination) of each ``option SOURCE DEST`` in ``argv``."""
    return [(argv[i + 1], argv[i + 2]) for i, word in enumerate(argv) if word == option]


def command(network: str = "maven", **kwargs: object) -> list[str]:
    options = SandboxOptions(network=network)  # type: ignore[arg-type]
    return sandboxed_command(["java", "-version"], options, PLACE, host_env=HOST_ENV, **kwargs)  # type: ignore[arg-type]


def test_it_drops_to_the_sandbox_user_and_unshares_everything() -> None:
    argv = command()
    assert argv[:6] == ["/usr/bin/setpriv", "--reuid=999", "--regid=995", "--init-groups", "--", "/usr/bin/bwrap"]
    for flag in ("--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--disable-userns"):
        assert flag in argv
    assert "--share-net" not in argv
    assert "--share-net" in command("all")


def test_the_system_is_read_only_and_only_the_workspace_is_writable() -> None:
    argv = command()
    assert pairs(argv, "--bind") == [(str(WORKSPACE), str(WORKSPACE))]
    read_only = pairs(argv, "--ro-bind")
    assert ("/usr", "/usr") in read_only
    assert ("/checkout/kotlin_llm_kernel", "/checkout/kotlin_llm_kernel") in read_only
    assert (str(RUN / "passwd"), "/etc/passwd") in read_only
    assert not any(source in ("/", "/etc", "/root", "/home") for source, _ in read_only)
    assert argv[argv.index("--chdir") + 1] == str(WORKSPACE)


def test_tmp_and_home_are_size_capped_tmpfs() -> None:
    argv = command()
    tmpfs = [(argv[i - 1], argv[i + 1]) for i, word in enumerate(argv) if word == "--tmpfs"]
    limits = Limits()
    assert tmpfs == [(str(limits.tmp_size), "/tmp"), (str(limits.home_size), "/home/sandbox")]


def test_the_environment_is_an_allowlist() -> None:
    argv = command()
    assert "--clearenv" in argv
    env = dict(pairs(argv, "--setenv"))
    assert env["HOME"] == "/home/sandbox"
    assert env["LANG"] == "en_US.UTF-8"
    assert env["PYTHONPATH"] == "/checkout:/venv/site-packages"
    assert env["JAVA_HOME"] == "/usr/lib/jvm/java-17"
    assert "GITHUB_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env


@pytest.mark.parametrize("network", ["maven", "none", "all"])
def test_the_engine_inside_is_told_the_network_mode(network: str) -> None:
    assert dict(pairs(command(network), "--setenv"))["KOTLIN_LLM_SANDBOX_NETWORK"] == network


def test_maven_binds_the_proxy_socket_settings_and_the_jdk_proxy_properties() -> None:
    maven = pairs(command(), "--ro-bind")
    assert (str(RUN / "egress.sock"), "/run/egress.sock") in maven
    assert (str(RUN / "settings.xml"), "/home/sandbox/.m2/settings.xml") in maven
    assert (str(RUN / "net.properties"), "/etc/java-17-openjdk/net.properties") in maven
    none = pairs(command("none"), "--ro-bind")
    assert not any(source.startswith(str(RUN / "egress")) or "settings" in source for source, _ in none)


def test_the_command_runs_under_the_limits_and_the_relay() -> None:
    argv = command(info_fd=7)
    assert argv[argv.index("--info-fd") + 1] == "7"
    inside = argv[argv.index("--", 6) + 1 :]
    assert inside == [
        "/usr/bin/python3.11",
        "-m",
        "kotlin_llm_kernel.sandbox.inside",
        "--nproc=512",
        f"--fsize={1024 * 1024 * 1024}",
        "--nofile=4096",
        "--relay",
        "/run/egress.sock",
        "--",
        "java",
        "-version",
    ]
    assert "--relay" not in command("none")


def test_more_binds_and_variables() -> None:
    argv = command(binds=[Bind(Path("/host/sockets"), "/run/jupyter", writable=True)], env={"TMPDIR": "/work/t"})
    assert ("/host/sockets", "/run/jupyter") in pairs(argv, "--bind")
    assert dict(pairs(argv, "--setenv"))["TMPDIR"] == "/work/t"


def test_the_generated_etc_files() -> None:
    assert passwd_text(999, 995).splitlines()[0] == "sandbox:x:999:995:sandbox:/home/sandbox:/usr/sbin/nologin"
    assert group_text(995).splitlines()[0] == "sandbox:x:995:"
    assert hosts_text().splitlines()[0] == "127.0.0.1 localhost sandbox"


def test_options_refuse_an_unknown_network() -> None:
    with pytest.raises(ValueError, match="network must be one of maven, none, all, not 'some'"):
        SandboxOptions(network="some")  # type: ignore[arg-type]


def test_a_missing_sandbox_user_is_named() -> None:
    import os

    if os.geteuid() != 0:
        assert sandbox_user("no-such-sandbox-user").uid == os.getuid()
        return
    with pytest.raises(SandboxUnavailable) as raised:
        sandbox_user("no-such-sandbox-user")
    assert str(raised.value) == (
        "The sandbox runs as the dedicated user 'no-such-sandbox-user' when started by root (bwrap run by root is no "
        "sandbox), and that user does not exist: create it with `useradd --system --user-group --no-create-home "
        "--home-dir /nonexistent --shell /usr/sbin/nologin no-such-sandbox-user` (scripts/setup.sh does)."
    )


def test_the_mcp_command_line() -> None:
    settings = parse(["--sandbox", "--network", "none", "--workspace", "/w", "--repository", "http://127.0.0.1:8/"])
    assert settings.sandbox == SandboxOptions(
        workspace=Path("/w"), network="none", repositories=("http://127.0.0.1:8/",)
    )
    assert parse([]).sandbox is None
    assert parse(["--sandbox"]).sandbox == SandboxOptions()
    with pytest.raises(SystemExit):
        parse(["--network", "none"])
    with pytest.raises(SystemExit):
        parse(["--sandbox", "--http", "8000"])


def test_the_servers_arguments_inside() -> None:
    argv = ["--sandbox", "--workspace=/w", "--network", "maven", "--repository", "http://localhost:81/m2/"]
    argv += ["--cell-time-limit", "5", "--local-repository", "/w/m2"]
    inner = inner_arguments(argv, Path("/w"), inside_url)
    assert inner == [
        "--repository",
        "http://host-loopback.sandbox.invalid:81/m2/",
        "--cell-time-limit",
        "5",
        "--local-repository",
        "/w/m2",
    ]
    with pytest.raises(SandboxUnavailable, match="--local-repository /elsewhere is outside the workspace /w"):
        inner_arguments(["--local-repository", "/elsewhere"], Path("/w"), inside_url)


def test_with_a_seccomp_filter_sh_opens_it_for_bwrap() -> None:
    import dataclasses

    place = dataclasses.replace(PLACE, seccomp=True)
    argv = sandboxed_command(["true"], SandboxOptions(), place, host_env=HOST_ENV)
    assert argv[5:11] == [
        "/bin/sh",
        "-c",
        'filter="$1"; shift; exec "$@" 9<"$filter"',
        "sh",
        str(RUN / "seccomp.bpf"),
        "/usr/bin/bwrap",
    ]
    assert argv[argv.index("--seccomp") + 1] == "9"
    assert "--seccomp" not in command()
