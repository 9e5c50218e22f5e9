"""The escape table of the sandbox tests (tests/test_sandbox_mcp.py, tests/test_sandbox_api.py): what a cell tries in
order to leave, what it gets without the sandbox, and the first line of its error in the sandbox; and the targets
it aims at (a file in the real home, a server on the host's 127.0.0.1, a host process, a directory outside the
workspace)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import kotlin_llm_kernel
import pytest
from kotlin_llm_kernel.sandbox.host import SandboxUnavailable, checked_bwrap, sandbox_user
from kotlin_llm_kernel.sandbox.layout import SANDBOX_USER

SECRET_NAME = "KOTLIN_LLM_TEST_SECRET"
SECRET = "s3cr3t-token-41"
PACKAGE = Path(kotlin_llm_kernel.__file__).parent
#: The threads the fork bomb starts: past the sandbox's 512 tasks.
BOMB_THREADS = 1000


def require_sandbox() -> None:
    """Fails (never skips) saying what the machine lacks for the sandbox."""
    try:
        checked_bwrap(sandbox_user(SANDBOX_USER).drop)
    except SandboxUnavailable as error:
        pytest.fail(f"the sandbox cannot run here (scripts/setup.sh provides it): {error}")


def open_directory() -> Path:
    """A fresh directory the sandbox's user can reach (tmp_path's parents are private to root)."""
    path = Path(tempfile.mkdtemp(prefix="kotlin-llm-sandbox-test-"))
    path.chmod(0o755)
    return path


@dataclass(frozen=True)
class Facts:
    """What the escapes aim at: a file in the real home, a server on 127.0.0.1, a host process, a directory outside
    the workspace (writable by anyone)."""

    marker: Path
    port: int
    helper: subprocess.Popen[bytes]
    outside: Path


@dataclass(frozen=True)
class Escape:
    name: str
    #: The cell, with ``{marker}``, ``{port}``, ``{pid}``, ``{outside}``, ``{package}``, ``{secret}`` (the secret's
    #: name) and ``{threads}`` filled in.
    code: str
    #: Its value without the sandbox.
    value: str
    #: The first line of its error in the sandbox.
    error: str

    def cell(self, facts: Facts) -> str:
        return self.code.format(
            marker=facts.marker,
            port=facts.port,
            pid=facts.helper.pid,
            outside=facts.outside,
            package=PACKAGE,
            secret=SECRET_NAME,
            threads=BOMB_THREADS,
        )


ESCAPES = [
    Escape(
        "home_file",
        'java.nio.file.Files.readString(java.nio.file.Path.of("{marker}"))',
        "home marker",
        "java.nio.file.NoSuchFileException: {marker}",
    ),
    Escape(
        "environment_secret",
        'checkNotNull(System.getenv("{secret}")) {{ "no {secret}" }}',
        SECRET,
        f"java.lang.IllegalStateException: no {SECRET_NAME}",
    ),
    Escape(
        "host_loopback_server",
        'java.net.Socket("127.0.0.1", {port}).use {{ it.getInputStream().bufferedReader().readLine() }}',
        "host server",
        "java.net.ConnectException: Connection refused",
    ),
    # a name resolved, then its address reached (no test needs the internet: the host's own server, by name)
    Escape(
        "resolved_name",
        'java.net.Socket(java.net.InetAddress.getByName("localhost"), {port})'
        ".use {{ it.getInputStream().bufferedReader().readLine() }}",
        "host server",
        "java.net.ConnectException: Connection refused",
    ),
    Escape(
        "write_outside_the_workspace",
        'java.nio.file.Files.writeString(java.nio.file.Path.of("{outside}/escaped.txt"), "out").toString()',
        "{outside}/escaped.txt",
        "java.nio.file.NoSuchFileException: {outside}/escaped.txt",
    ),
    Escape(
        "write_the_system",
        'java.nio.file.Files.writeString(java.nio.file.Path.of("{package}/escaped.txt"), "out").toString()',
        "{package}/escaped.txt",
        "java.nio.file.FileSystemException: {package}/escaped.txt: Read-only file system",
    ),
    Escape(
        "process_environment",
        'ProcessBuilder("sh", "-c", "env").start().inputStream.bufferedReader().readText().lines()'
        '.single {{ it.startsWith("{secret}=") }}',
        f"{SECRET_NAME}={SECRET}",
        "java.util.NoSuchElementException: Collection contains no element matching the predicate.",
    ),
    Escape(
        "list_host_processes",
        "ProcessHandle.allProcesses().anyMatch {{ it.pid() == {pid}L }}"
        '.also {{ check(it) {{ "host process {pid} not seen" }} }}',
        "true",
        "java.lang.IllegalStateException: host process {pid} not seen",
    ),
    Escape(
        "signal_a_host_process",
        "ProcessHandle.of({pid}L).orElseThrow().destroyForcibly()",
        "true",
        "java.util.NoSuchElementException: No value present",
    ),
    Escape(
        "fork_bomb",
        "val gate = java.util.concurrent.CountDownLatch(1)\n"
        "try {{\n"
        "    (1..{threads}).map {{ Thread {{ gate.await() }}.apply {{ isDaemon = true; start() }} }}.size\n"
        "}} finally {{ gate.countDown() }}",
        str(BOMB_THREADS),
        "java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource "
        "limits reached",
    ),
    Escape(
        "file_past_the_size_limit",
        'java.io.File("big.bin").outputStream().use {{ out ->\n'
        "    val block = ByteArray(1 shl 20)\n"
        "    repeat(1030) {{ out.write(block) }}\n"
        "}}\n"
        'java.io.File("big.bin").length().also {{ java.io.File("big.bin").delete() }}',
        str(1030 << 20),
        "java.io.IOException: File too large",
    ),
]


@contextmanager
def greeting_server() -> Iterator[int]:
    """A TCP server on the host's 127.0.0.1 that greets each connection; its port."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.sendall(b"host server\n")

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


@contextmanager
def home_marker() -> Iterator[Path]:
    """A file in a fresh directory of the real home."""
    directory = Path(tempfile.mkdtemp(dir=Path.home(), prefix="kotlin-llm-sandbox-marker-"))
    (directory / "marker.txt").write_text("home marker", encoding="utf-8")
    try:
        yield directory / "marker.txt"
    finally:
        shutil.rmtree(directory)


def facts_for(marker: Path, port: int) -> Facts:
    outside = open_directory()
    outside.chmod(0o777)
    return Facts(marker, port, subprocess.Popen(["sleep", "600"]), outside)


@contextmanager
def escape_targets() -> Iterator[tuple[Path, int]]:
    """What the escapes reach for on the host, for a test module: the marker in the real home and the greeting
    server's port (:func:`facts_for` takes both)."""
    with home_marker() as marker, greeting_server() as port:
        yield marker, port


@contextmanager
def escape_facts(targets: tuple[Path, int]) -> Iterator[Facts]:
    """The facts of one run of the table; afterwards its directory outside is removed, and the file the escape into
    the package writes (where no sandbox stops it) deleted."""
    facts = facts_for(*targets)
    try:
        yield facts
    finally:
        shutil.rmtree(facts.outside)
        (PACKAGE / "escaped.txt").unlink(missing_ok=True)
