"""``python -m kotlin_llm_kernel.sandbox.kernel_launcher -f CONNECTION_FILE [--workspace DIR] [--network MODE]
[--KotlinKernel.x=…]``: the kotlin-llm kernel run inside a sandbox (:mod:`.sandbox`), for the ``kotlin-llm-sandboxed``
kernelspec.

The kernel has no network of its own, so it binds ipc sockets in a directory bound into the sandbox
(``/run/jupyter/k-<port>``, from an inner connection file with the client's ports and key), and this process serves
the client's five TCP ports and relays them there byte for byte (:mod:`.zmq_relay`). bwrap runs in a session of its
own, so that a signal to this process's group (jupyter_client's) does not kill it; SIGINT, SIGTERM and SIGQUIT are
passed on to the kernel's process instead (its host pid, found from bwrap's ``--info-fd``). This process exits with
the kernel, with its exit status, and removes what it made; when the client's process that started it ends
(``JPY_PARENT_PID``, as ipykernel watches it), it ends the sandbox."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupyter_core.paths import jupyter_config_path
from traitlets import TraitError

from ..config.kernel_config import CONFIG_FILE, load
from .egress import inside_url
from .host import SandboxUnavailable
from .layout import NETWORK_ENV, NETWORKS, Bind, SandboxOptions
from .sandbox import Sandbox
from .zmq_relay import ZmqRelay

#: The connection file's ports, one per channel.
PORT_NAMES = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
#: Where the directory of the kernel's sockets and its connection file is seen inside.
RUN_DIR_INSIDE = "/run/jupyter"
#: The kernel's connection file in that directory, and the prefix of its sockets (ipykernel binds ``<ip>-<port>``).
INNER_CONNECTION_FILE = "connection.json"
SOCKET_PREFIX = "k"
#: The settings of the sandbox from the environment (a kernelspec's ``env``), when not given as options.
ENV_WORKSPACE = "KOTLIN_LLM_SANDBOX_WORKSPACE"
ENV_NETWORK = NETWORK_ENV
#: The kernel's parent inside is the sandbox's first process (pid 1): ipykernel then neither watches for its parent's
#: end (this launcher's, which bwrap's --die-with-parent covers) nor prints that Ctrl-C will not work.
PARENT_PID = "JPY_PARENT_PID"
INNER_ENV = {PARENT_PID: "1"}
#: Where the kernel's config files from the host's Jupyter config path are seen inside (the real home and /etc are
#: not), one numbered directory for each directory they came from, in the same order.
CONFIG_INSIDE = "/run/kotlin-llm-config"
CONFIG_SUFFIXES = (".py", ".json")
#: The kernel's setting of its Maven repositories, which the egress proxy lets through (``--network maven``).
REPOSITORIES = "--KotlinKernel.repositories"
#: The signals passed on to the kernel.
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)
#: How this launcher names itself in what it prints.
PROG = "python -m kotlin_llm_kernel.sandbox.kernel_launcher"


def inner_connection(outer: Mapping[str, Any]) -> dict[str, Any]:
    """The kernel's connection info inside: the client's, with ipc sockets in the bound directory instead of TCP.
    The key, the signature scheme and the ports stay (a port names its socket); a ``ValueError`` says why the
    client's info cannot be relayed."""
    transport = outer.get("transport", "tcp")
    if transport != "tcp":
        raise ValueError(f"the client's connection file asks for transport {transport!r}; only tcp can be relayed")
    missing = [name for name in PORT_NAMES if not isinstance(outer.get(name), int) or outer[name] <= 0]
    if missing:
        raise ValueError(f"the client's connection file has no port for {', '.join(missing)}")
    return {**outer, "transport": "ipc", "ip": f"{RUN_DIR_INSIDE}/{SOCKET_PREFIX}"}


def client_ports(outer: Mapping[str, Any]) -> list[int]:
    return [int(outer[name]) for name in PORT_NAMES]


@dataclass(frozen=True)
class LaunchSettings:
    """What the launcher was asked: the client's connection file, the sandbox, the kernel's own arguments."""

    connection_file: Path
    options: SandboxOptions
    kernel_arguments: tuple[str, ...]


def parse(argv: Sequence[str], env: Mapping[str, str] | None = None) -> LaunchSettings:
    """The launcher's arguments; the workspace and network fall back to the environment (``env``, default
    ``os.environ``); every other argument is the kernel's (``--KotlinKernel.x=…``)."""
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0].split(": ", 1)[-1])
    parser.add_argument("-f", dest="connection_file", required=True, help="the client's connection file")
    parser.add_argument(
        "--workspace",
        default=env.get(ENV_WORKSPACE) or None,
        help=f"the writable working directory of the session (default: ${ENV_WORKSPACE}, else a fresh one)",
    )
    parser.add_argument(
        "--network",
        choices=NETWORKS,
        default=env.get(ENV_NETWORK) or "maven",
        help=f"maven (only the Maven repositories, through a proxy), none, or all (default: ${ENV_NETWORK}, "
        "else maven)",
    )
    args, kernel_arguments = parser.parse_known_args(list(argv))
    if args.network not in NETWORKS:  # from the environment, which argparse does not check
        parser.error(f"{ENV_NETWORK} must be one of {', '.join(NETWORKS)}, not {args.network!r}")
    repositories = kernel_repositories(kernel_arguments)
    kernel_arguments = repositories_inside(kernel_arguments, repositories)
    options = SandboxOptions(
        workspace=Path(args.workspace) if args.workspace else None,
        network=args.network,
        repositories=tuple(repositories),
    )
    return LaunchSettings(Path(args.connection_file), options, tuple(kernel_arguments))


def kernel_repositories(kernel_arguments: Sequence[str]) -> tuple[str, ...]:
    """The repositories the kernel starts with, read as the kernel reads its settings (its config files, then its
    arguments); none when a setting is malformed (the kernel inside then says which)."""
    try:
        return load(list(kernel_arguments)).request.session.repositories
    except (TraitError, ValueError):  # the kernel's own start reports it
        return ()


def repositories_inside(kernel_arguments: Sequence[str], repositories: Sequence[str]) -> list[str]:
    """The kernel's arguments for inside: ``repositories`` as the setting's items (over those of its arguments and
    config files), a repository on the host's loopback named as the code inside reaches it through the proxy
    (:func:`.egress.inside_url`)."""
    others: list[str] = []
    words = iter(kernel_arguments)
    for argument in words:
        name, has_value, _ = argument.partition("=")
        if name != REPOSITORIES:
            others.append(argument)
        elif not has_value:  # `--KotlinKernel.repositories URL`
            next(words, None)
    if not repositories:
        return others
    return [*others, *(f"{REPOSITORIES}={inside_url(url)}" for url in repositories)]  # one item each, as traitlets 5


class _Kernel:
    """bwrap running the kernel, and the kernel's host pid once bwrap has said where its sandbox is."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.child_pid: int | None = None

    def pid(self) -> int | None:
        """The kernel's host pid: the child of the sandbox's first process (bwrap's reaper, pid 1 inside)."""
        if self.child_pid is None:
            return None
        try:
            children = Path(f"/proc/{self.child_pid}/task/{self.child_pid}/children").read_text().split()
        except OSError:
            return None
        return int(children[0]) if children else None

    def forward(self, number: signal.Signals) -> None:
        pid = self.pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, number)
        elif self.process.returncode is None:
            if number == signal.SIGINT:
                return  # no kernel yet: nothing to interrupt
            self._signal_bwrap(number)  # the sandbox ends with bwrap (--die-with-parent)

    def end(self) -> None:
        """Ends the sandbox at once: bwrap's end kills everything in it (--die-with-parent)."""
        self._signal_bwrap(signal.SIGKILL)

    def _signal_bwrap(self, number: signal.Signals) -> None:
        # os.kill, not the process's send_signal: that polls the process first, and reaping it there would leave
        # asyncio's own wait without its exit status
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.process.pid, number)

    def found(self, info: bytes) -> None:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            self.child_pid = int(json.loads(info)["child-pid"])


def _watch_parent(loop: asyncio.AbstractEventLoop, kernel: _Kernel, env: Mapping[str, str]) -> int | None:
    """Ends the sandbox when the process in ``JPY_PARENT_PID`` (the client's, which jupyter_client names) ends, as
    ipykernel does for its parent; the pidfd watched, or None (no such variable, or that process already gone)."""
    try:
        fd = os.pidfd_open(int(env[PARENT_PID]))
    except (KeyError, ValueError, OSError):
        return None

    def ended() -> None:
        loop.remove_reader(fd)  # a pidfd stays readable: once is enough
        kernel.end()

    loop.add_reader(fd, ended)
    return fd


def copy_config_files(directory: Path, search_path: Sequence[str]) -> list[str]:
    """Copies the kernel's config files (``kotlin_llm_kernel_config.py`` and ``.json``) found in the directories of
    ``search_path`` (most specific first, as :func:`jupyter_core.paths.jupyter_config_path` lists them) to numbered
    directories of ``directory``, readable by all; the JUPYTER_CONFIG_PATH inside that finds them in the same order."""
    inside = []
    for number, source in enumerate(search_path):
        found = [Path(source, CONFIG_FILE + suffix) for suffix in CONFIG_SUFFIXES]
        found = [path for path in found if path.is_file()]
        if not found:
            continue
        target = directory / str(number)
        target.mkdir(mode=0o755)
        for path in found:
            copy = target / path.name
            copy.write_bytes(path.read_bytes())
            copy.chmod(0o644)
        inside.append(f"{CONFIG_INSIDE}/{number}")
    return inside


def _read_all(fd: int) -> bytes:
    chunks = []
    with os.fdopen(fd, "rb", buffering=0) as pipe:
        while chunk := pipe.read(4096):
            chunks.append(chunk)
    return b"".join(chunks)


def _write_inner(directory: Path, info: Mapping[str, Any], sandbox: Sandbox) -> None:
    path = directory / INNER_CONNECTION_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(info, file, indent=1)
    if sandbox.user.drop:
        os.chown(path, sandbox.user.uid, sandbox.user.gid)


async def run(settings: LaunchSettings, sandbox: Sandbox) -> int:
    """Runs the kernel in ``sandbox`` and relays the client to it until it exits; its exit status."""
    outer = json.loads(settings.connection_file.read_text(encoding="utf-8"))
    inner = inner_connection(outer)
    directory = sandbox.directory("jupyter")  # bound at /run/jupyter: the sandbox's user owns it, no one else enters
    _write_inner(directory, inner, sandbox)
    relay = ZmqRelay(client_ports(outer), directory, host=str(outer.get("ip") or "127.0.0.1"))
    await relay.start()
    config = sandbox.directory("config")
    config_path = copy_config_files(config, jupyter_config_path())
    env = INNER_ENV | ({"JUPYTER_CONFIG_PATH": os.pathsep.join(config_path)} if config_path else {})
    binds = [Bind(directory, RUN_DIR_INSIDE, writable=True), Bind(config, CONFIG_INSIDE)]
    read_end, write_end = os.pipe()
    try:
        kernel_argv = sandbox.python(
            "-m", "kotlin_llm_kernel", "-f", f"{RUN_DIR_INSIDE}/{INNER_CONNECTION_FILE}", *settings.kernel_arguments
        )
        command = sandbox.command(kernel_argv, binds=binds, env=env, info_fd=write_end)
        process = await asyncio.create_subprocess_exec(*command, pass_fds=(write_end,), start_new_session=True)
    except BaseException:
        os.close(read_end)
        await relay.close()
        raise
    finally:
        os.close(write_end)
    kernel = _Kernel(process)
    loop = asyncio.get_running_loop()
    for number in FORWARDED:
        loop.add_signal_handler(number, kernel.forward, number)
    parent = _watch_parent(loop, kernel, os.environ)
    try:
        kernel.found(await loop.run_in_executor(None, _read_all, read_end))
        status = await process.wait()
    finally:
        for number in FORWARDED:
            loop.remove_signal_handler(number)
        if parent is not None:
            loop.remove_reader(parent)
            os.close(parent)
        await relay.close()
    return 128 - status if status < 0 else status


def main(argv: list[str] | None = None) -> None:
    settings = parse(sys.argv[1:] if argv is None else argv)
    try:
        with Sandbox(settings.options) as sandbox:
            status = asyncio.run(run(settings, sandbox))
    except (SandboxUnavailable, ValueError, OSError) as error:
        sys.exit(f"kotlin-llm sandboxed kernel: not started: {error}")
    sys.exit(status)


if __name__ == "__main__":
    main()
