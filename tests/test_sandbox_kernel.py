"""The sandboxed kernel (``kotlin-llm-sandboxed``) over the real protocol: jupyter_client starts the launcher, which
runs the kernel in bubblewrap as the sandbox's user and relays the client's sockets to it. The protocol keeps working
(execute, stdin, interrupts in both modes, rich output, completion, restart, shutdown), code that tries to leave
fails (an error in its cell, or the sandbox's own answer) while the session keeps its state (each escape succeeds
on the plain kernel first), the kernel's repositories resolve under ``--network maven`` only, and without bwrap no
kernel starts."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import zmq
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.connect import write_connection_file
from jupyter_client.manager import KernelManager
from kotlin_llm_kernel.install import sandboxed_kernel_spec
from kotlin_llm_kernel.sandbox.egress import LOOPBACK_ALIAS
from kotlin_llm_kernel.sandbox.kernel_launcher import ENV_NETWORK, ENV_WORKSPACE, RUN_DIR_INSIDE

from kernel_client import (
    CELL_TIMEOUT,
    KERNEL,
    STARTUP_TIMEOUT,
    Cell,
    collect,
    execute,
    read_until,
    request,
    running_kernel,
    warm_up,
)
from maven_repository import greeter_repository

SANDBOXED = "kotlin-llm-sandboxed"
SANDBOXED_SIGNAL = "kotlin-llm-sandboxed-signal"
#: Only catches a hang: an interrupted sleep ends within a fraction of a second, a process within a few.
HANG_GUARD = 30
#: What the sandboxed session holds before each case; every case checks it is still there after.
KEPT = "val kept = 41"
SLEEP = 'println("started")\nThread.sleep(60000)'


#: A secret in the environment of the process that starts the kernel.
SECRET = ("KOTLIN_LLM_TEST_SECRET", f"s3cret-{uuid.uuid4().hex}")


@dataclass(frozen=True)
class Escape:
    """A cell that leaves the sandbox if it can: its result outside, and inside the error it meets (``ename``,
    ``evalue``) or, for a question the sandbox answers for itself, its result there (``inside``)."""

    code: str
    outside: str
    ename: str = ""
    evalue: str = ""
    inside: str | None = None


@pytest.fixture(scope="module")
def marker() -> Iterator[Path]:
    """A file in the real home of the user running the tests."""
    path = Path.home() / f".kotlin-llm-sandbox-test-{uuid.uuid4().hex}"
    path.write_text("the real home", encoding="utf-8")
    yield path
    path.unlink()


class _Greeter(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.sendall(b"hello from the host\n")


@pytest.fixture(scope="module")
def host_server() -> Iterator[int]:
    """A TCP server on the host's 127.0.0.1; its port."""
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Greeter) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield server.server_address[1]
        server.shutdown()


@pytest.fixture(scope="module")
def outside_file() -> Iterator[Path]:
    """Where a cell may try to write outside its workspace: a directory anyone may write."""
    parent = Path(tempfile.mkdtemp(prefix="kotlin-llm-sandbox-test-"))
    parent.chmod(0o777)
    yield parent / "escaped.txt"
    shutil.rmtree(parent)


@pytest.fixture(scope="module")
def escapes(marker: Path, host_server: int, outside_file: Path) -> dict[str, Escape]:
    return {
        "read an environment secret": Escape(f'System.getenv("{SECRET[0]}")', SECRET[1], inside="null"),
        "write outside the workspace": Escape(
            f'java.nio.file.Files.writeString(java.nio.file.Path.of("{outside_file}"), "escaped").toString()',
            str(outside_file),
            "java.nio.file.NoSuchFileException",
            str(outside_file),
        ),
        "see a host process": Escape(f"ProcessHandle.of({os.getpid()}).isPresent", "true", inside="false"),
        "read the real home": Escape(
            f'java.nio.file.Files.readString(java.nio.file.Path.of("{marker}"))',
            "the real home",
            "java.nio.file.NoSuchFileException",
            str(marker),
        ),
        "connect to the host's loopback": Escape(
            f'java.net.Socket("127.0.0.1", {host_server}).use {{ it.getInputStream().bufferedReader().readLine() }}',
            "hello from the host",
            "java.net.ConnectException",
            "Connection refused",
        ),
    }


ESCAPES = [
    "read the real home",
    "read an environment secret",
    "write outside the workspace",
    "see a host process",
    "connect to the host's loopback",
]


@pytest.fixture(scope="module")
def workspace() -> Iterator[Path]:
    """A workspace the sandbox makes (and gives its user) in a directory anyone may enter."""
    parent = Path(tempfile.mkdtemp(prefix="kotlin-llm-sandbox-test-"))
    parent.chmod(0o755)
    yield parent / "workspace"
    shutil.rmtree(parent)


@pytest.fixture(scope="module")
def plain() -> Iterator[tuple[Any, Any]]:
    with running_kernel(env={**os.environ, SECRET[0]: SECRET[1]}) as (km, kc):
        warm_up(kc)
        assert execute(kc, KEPT).status == "ok"
        yield km, kc


@pytest.fixture(scope="module")
def sandboxed(workspace: Path) -> Iterator[tuple[Any, Any]]:
    """The sandboxed kernel of the module (message interrupts), with ``kept`` defined, in ``workspace``."""
    env = {**os.environ, ENV_WORKSPACE: str(workspace), SECRET[0]: SECRET[1]}
    with running_kernel(SANDBOXED, env=env) as (km, kc):
        warm_up(kc)
        assert execute(kc, KEPT).status == "ok"
        yield km, kc


def assert_kept(kc: Any) -> None:
    assert execute(kc, "kept").result == "41", "the session keeps its state"


@pytest.mark.parametrize("case", ESCAPES)
def test_the_escape_succeeds_without_the_sandbox(
    plain: tuple[Any, Any], escapes: dict[str, Escape], outside_file: Path, case: str
) -> None:
    _, kc = plain
    cell = execute(kc, escapes[case].code)
    assert cell.status == "ok", cell.content
    assert cell.result == escapes[case].outside
    outside_file.unlink(missing_ok=True)  # written by its case: the sandboxed kernel's try starts without it


@pytest.mark.parametrize("case", ESCAPES)
def test_the_escape_fails_in_the_sandbox(
    sandboxed: tuple[Any, Any], escapes: dict[str, Escape], outside_file: Path, case: str
) -> None:
    _, kc = sandboxed
    escape = escapes[case]
    cell = execute(kc, escape.code)
    if escape.inside is not None:
        assert (cell.status, cell.result) == ("ok", escape.inside), cell.content
    else:
        assert cell.status == "error", cell.content
        assert (cell.content["ename"], cell.content["evalue"]) == (escape.ename, escape.evalue)
    assert not outside_file.exists()
    assert_kept(kc)


def test_a_cell_runs_in_the_workspace_as_the_sandbox_user(sandboxed: tuple[Any, Any], workspace: Path) -> None:
    _, kc = sandboxed
    assert execute(kc, "1 + 1").result == "2"
    where = execute(kc, 'listOf("user.dir", "user.home", "user.name").map { System.getProperty(it) }')
    assert where.result == f"[{workspace}, /home/sandbox, sandbox]"


def test_the_heartbeat_echoes(sandboxed: tuple[Any, Any]) -> None:
    km, _ = sandboxed
    info = km.get_connection_info()
    context = zmq.Context()
    heart = context.socket(zmq.REQ)
    heart.setsockopt(zmq.LINGER, 0)
    heart.setsockopt(zmq.RCVTIMEO, HANG_GUARD * 1000)
    try:
        heart.connect(f"tcp://{info['ip']}:{info['hb_port']}")
        heart.send(b"ping")
        assert heart.recv() == b"ping"
    finally:
        heart.close()
        context.term()


def test_readline_is_answered_by_an_input_reply(sandboxed: tuple[Any, Any]) -> None:
    _, kc = sandboxed
    msg_id = kc.execute('print("Name: ")\nval name = readLine()\n"Hello $name"', allow_stdin=True)
    input_request = kc.get_stdin_msg(timeout=CELL_TIMEOUT)
    assert input_request["msg_type"] == "input_request"
    assert input_request["parent_header"]["msg_id"] == msg_id, "routed to the cell's own request"
    kc.input("Ada Lovelace")
    cell = collect(kc, msg_id)
    assert (cell.stdout, cell.result) == ("Name: ", "Hello Ada Lovelace")


def interrupted(km: Any, kc: Any) -> Cell:
    """Runs :data:`SLEEP`, interrupts it once it has started, and returns the cell."""
    msg_id = kc.execute(SLEEP)
    seen = read_until(kc, msg_id, "started")
    km.interrupt_kernel()
    return collect(kc, msg_id, timeout=HANG_GUARD, seen=seen)


def test_an_interrupt_message_ends_the_sleep_and_the_session_goes_on(sandboxed: tuple[Any, Any]) -> None:
    km, kc = sandboxed
    assert km.kernel_spec.interrupt_mode == "message"
    cell = interrupted(km, kc)
    assert cell.status == "error", cell.content
    assert cell.content["ename"] == "java.lang.InterruptedException"
    assert cell.kotlin_llm["interrupted"] is True
    assert_kept(kc)


def test_rich_output(sandboxed: tuple[Any, Any]) -> None:
    _, kc = sandboxed
    cell = execute(kc, 'DISPLAY(HTML("<b>bold</b>"))\nHTML("<i>x</i>")')
    [display] = cell.outputs("display_data")
    assert display["content"]["data"] == {"text/plain": "<b>bold</b>", "text/html": "<b>bold</b>"}
    [result] = cell.outputs("execute_result")
    assert result["content"]["data"] == {"text/plain": "<i>x</i>", "text/html": "<i>x</i>"}


def test_completion(sandboxed: tuple[Any, Any]) -> None:
    _, kc = sandboxed
    reply = request(kc, "complete_request", code="listOf(1).ma", cursor_pos=12)["content"]
    assert (reply["status"], reply["cursor_start"], reply["cursor_end"]) == ("ok", 10, 12)
    assert reply["matches"][:2] == ["map", "mapIndexed"]


def test_a_restart_starts_a_new_session_in_the_same_workspace(sandboxed: tuple[Any, Any], workspace: Path) -> None:
    km, kc = sandboxed
    assert execute(kc, 'java.io.File("note.txt").writeText("written before the restart")').status == "ok"
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=STARTUP_TIMEOUT)
    gone = execute(kc, "kept")
    assert gone.status == "error", gone.content
    assert gone.content["evalue"].endswith("error: Unresolved reference 'kept'.")
    assert execute(kc, "1 + 1").result == "2"
    assert execute(kc, 'java.io.File("note.txt").readText()').result == "written before the restart"
    assert (workspace / "note.txt").read_text(encoding="utf-8") == "written before the restart"


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _descendants(pid: int) -> list[int]:
    found = []
    for child in _children(pid):
        found += [child, *_descendants(child)]
    return found


@dataclass
class Launched:
    """The launcher jupyter_client started, bwrap's process tree under it and the launcher's run directory."""

    launcher: Any
    processes: list[int]
    run_dir: Path


def launched(km: Any) -> Launched:
    return launched_by(km.provisioner.process)


def launched_by(launcher: subprocess.Popen[bytes]) -> Launched:
    [bwrap] = _children(launcher.pid)
    argv = Path(f"/proc/{bwrap}/cmdline").read_bytes().decode().split("\0")
    socket_dir = Path(argv[argv.index(RUN_DIR_INSIDE) - 1])
    return Launched(launcher, [bwrap, *_descendants(bwrap)], socket_dir.parent)


def wait_gone(pids: list[int], timeout: float = HANG_GUARD) -> None:
    """Returns once every process of ``pids`` has ended; fails after ``timeout``."""
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            ended, _, _ = select.select([fd], [], [], timeout)
            assert ended, f"process {pid} still runs"
        finally:
            os.close(fd)


def test_shutdown_ends_the_sandbox_and_removes_the_run_directory(sandboxed: tuple[Any, Any]) -> None:
    km, _ = sandboxed
    before = launched(km)
    assert len(before.processes) >= 3, "bwrap, the sandbox's first process, the kernel"
    assert before.run_dir.is_dir()
    km.shutdown_kernel(now=False)
    assert before.launcher.returncode == 0
    wait_gone(before.processes)
    assert not before.run_dir.exists()


@pytest.fixture(scope="module")
def signal_kernelspec(jupyter_dir: Path) -> str:
    """The sandboxed kernelspec with signal interrupts: jupyter_client sends SIGINT to the launcher's group."""
    spec_dir = jupyter_dir / "share" / "jupyter" / "kernels" / SANDBOXED_SIGNAL
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = sandboxed_kernel_spec() | {"interrupt_mode": "signal"}
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    return SANDBOXED_SIGNAL


def test_signals_to_the_launcher_reach_the_kernel(signal_kernelspec: str) -> None:
    """SIGINT (an interrupt in signal mode) and SIGTERM go to the launcher, which passes them to the kernel: the sleep
    is interrupted and the session goes on; then SIGTERM ends the kernel, and with it the launcher."""
    with running_kernel(signal_kernelspec) as (km, kc):
        warm_up(kc)
        assert execute(kc, KEPT).status == "ok"
        cell = interrupted(km, kc)
        assert cell.status == "error", cell.content
        assert cell.content["ename"] == "java.lang.InterruptedException"
        assert_kept(kc)
        running = launched(km)
        running.launcher.send_signal(signal.SIGTERM)
        assert running.launcher.wait(HANG_GUARD) == 128 + signal.SIGTERM
        wait_gone(running.processes)
        assert not running.run_dir.exists()


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Maven repository on the host's 127.0.0.1 with com.example:greeter 1.0 and 1.1."""
    with greeter_repository(tmp_path_factory.mktemp("repo")) as url:
        yield url


def test_network_maven_resolves_from_the_kernels_repository(repository: str) -> None:
    """The repository of the kernel's settings is let through by the proxy, as the code inside names it."""
    arguments = [f"--KotlinKernel.repositories={json.dumps([repository])}"]
    with running_kernel(SANDBOXED, extra_arguments=arguments, env={**os.environ, ENV_NETWORK: "maven"}) as (_, kc):
        resolved = execute(kc, '@file:DependsOn("com.example:greeter")')
        assert resolved.status == "ok", resolved.content
        assert execute(kc, "com.example.greeter.Greeter.version()").result == "1.1"


def test_network_none_refuses_the_repository(repository: str) -> None:
    arguments = [f"--KotlinKernel.repositories={json.dumps([repository])}"]
    with running_kernel(SANDBOXED, extra_arguments=arguments, env={**os.environ, ENV_NETWORK: "none"}) as (_, kc):
        refused = execute(kc, '@file:DependsOn("com.example:greeter")')
        assert refused.status == "error", refused.content
        alias = repository.replace("127.0.0.1", LOOPBACK_ALIAS)
        assert refused.content["evalue"] == (
            f"snippet1.kts:1:1: error: Cannot resolve 'com.example:greeter': cannot connect to {alias}: "
            "Connection refused"
        )


def test_without_bwrap_the_kernel_refuses_to_start(workspace: Path) -> None:
    """Never unsandboxed: the launcher exits, saying what is missing, and no kernel starts."""
    path = workspace.parent / "path-without-bwrap"
    path.mkdir()
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "setpriv (util-linux) is needed"
    (path / "setpriv").symlink_to(setpriv)
    km = KernelManager(kernel_name=SANDBOXED)
    km.start_kernel(env={**os.environ, "PATH": str(path)}, stderr=subprocess.PIPE)
    try:
        launcher = km.provisioner.process
        assert launcher.wait(HANG_GUARD) == 1
        said = launcher.stderr.read().decode()
    finally:
        km.cleanup_resources()
    assert said.startswith("kotlin-llm sandboxed kernel: not started: bubblewrap (bwrap) is not installed"), said


def started_directly(connection_file: str, client: int) -> tuple[subprocess.Popen[bytes], Launched]:
    """The launcher started as jupyter_client would by the process ``client``, once its kernel answers."""
    command = [sys.executable, "-m", "kotlin_llm_kernel.sandbox.kernel_launcher", "-f", connection_file]
    launcher = subprocess.Popen(command, env={**os.environ, "JPY_PARENT_PID": str(client)})
    kc = BlockingKernelClient(connection_file=connection_file)
    kc.load_connection_file()
    kc.start_channels(hb=False)  # without a manager, a heart not yet beating would count as a dead kernel
    try:
        request(kc, "kernel_info_request", timeout=STARTUP_TIMEOUT)
        return launcher, launched_by(launcher)
    except BaseException:
        launcher.kill()
        launcher.wait()
        raise
    finally:
        kc.stop_channels()


def test_the_sandbox_ends_with_the_client_process(tmp_path: Path) -> None:
    """As ipykernel watches the process named by JPY_PARENT_PID, the launcher does: when it ends, so does the
    sandbox, and the launcher removes what it made."""
    connection_file, _ = write_connection_file(str(tmp_path / "kernel.json"))
    client = subprocess.Popen(["sleep", "600"])
    launcher, running = started_directly(connection_file, client.pid)
    try:
        client.kill()
        client.wait()
        assert launcher.wait(HANG_GUARD) == 128 + signal.SIGKILL, "bwrap killed, and the sandbox with it"
        wait_gone(running.processes)
        assert not running.run_dir.exists()
    finally:
        for process in (client, launcher):
            if process.poll() is None:
                process.kill()
                process.wait()


def test_a_launcher_killed_outright_takes_the_sandbox_with_it(tmp_path: Path) -> None:
    """SIGKILL cannot be passed on: bwrap's --die-with-parent ends the sandbox (only the run directory stays)."""
    connection_file, _ = write_connection_file(str(tmp_path / "kernel.json"))
    launcher, running = started_directly(connection_file, os.getpid())
    try:
        launcher.kill()
        assert launcher.wait(HANG_GUARD) == -signal.SIGKILL
        wait_gone(running.processes)
    finally:
        shutil.rmtree(running.run_dir, ignore_errors=True)


@pytest.mark.parametrize("kernel_name", [KERNEL, SANDBOXED])
def test_the_kernel_config_files_apply_as_outside(kernel_name: str, tmp_path: Path) -> None:
    """A ``kotlin_llm_kernel_config`` file of the Jupyter config path sets the sandboxed kernel as the plain one,
    though inside the kernel sees neither the real home nor /etc (the launcher copies the kernel's files in)."""
    config_dir = tmp_path / "config"
    config_dir.mkdir()
    settings = {"KotlinKernel": {"jvm_options": ["-Dkotlin.llm.test.config=from a config file"]}}
    (config_dir / "kotlin_llm_kernel_config.json").write_text(json.dumps(settings), encoding="utf-8")
    with running_kernel(kernel_name, env={**os.environ, "JUPYTER_CONFIG_DIR": str(config_dir)}) as (_, kc):
        assert execute(kc, 'System.getProperty("kotlin.llm.test.config")').result == "from a config file"
