"""Warm spares over the real protocol: kernels started through jupyter_client's KernelManager from plain kernelspecs
(the kernel's own command claims a spare, kotlin_llm_kernel/spares/), each test pool with its settings in the spec's
argv and a private directory; no spare outlives the module (checked with psutil)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import psutil
import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager
from kotlin_llm_kernel.install import kernel_spec
from kotlin_llm_kernel.spares.command import stop
from kotlin_llm_kernel.spares.pool import Pool, Record

from kernel_client import STARTUP_TIMEOUT, collect, execute, read_until

#: Generous: a spare starts and warms a JVM and the compiler while other kernels run on two cores.
SPARE_DEADLINE = 240.0
#: Each test pool's settings, as a kernelspec's argv gives them.
POOLS: dict[str, list[str]] = {
    "warm": ["--KotlinKernel.spare_refill_delay=0"],
    "brief": ["--KotlinKernel.spare_refill_delay=0", "--KotlinKernel.spare_idle_timeout=3"],
    "capped": ["--KotlinKernel.spare_memory_ceiling=300"],
    "off": [],
}
KERNELS = {name: f"kotlin-llm-{name}-test" for name in POOLS}
#: The warm kernel with interrupts as signals (sent to the process the client started, which passes them on).
SIGNAL_KERNEL = "kotlin-llm-warm-signal-test"
pytestmark = pytest.mark.timeout(900)


def _install(jupyter_dir: Path, name: str, settings: list[str], **more: Any) -> None:
    directory = jupyter_dir / "share" / "jupyter" / "kernels" / name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "kernel.json").write_text(json.dumps(kernel_spec(settings) | more), encoding="utf-8")


@pytest.fixture(scope="module")
def pools(jupyter_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Pool]]:
    """Kernels, each kind with a pool of its own: ``warm`` (spares start at once, idle 10 minutes), ``brief`` (idle 3
    seconds), ``capped`` (a memory ceiling below one spare) and ``off`` (no spares; the tests' environment turns them
    off for every other kernel); ``warm-signal`` is the warm kernel with signal interrupts. At the end every spare is
    stopped and no process of theirs is left."""
    directories = {name: tmp_path_factory.mktemp(f"pool-{name}") for name in POOLS}
    for name, settings in POOLS.items():
        # spares on against the tests' KOTLIN_LLM_SPARES=0
        _install(
            jupyter_dir,
            KERNELS[name],
            [
                f"--KotlinKernel.spares={0 if name == 'off' else 1}",
                f"--KotlinKernel.spare_pool={directories[name]}",
                *settings,
            ],
        )
    _install(
        jupyter_dir,
        SIGNAL_KERNEL,
        ["--KotlinKernel.spares=1", f"--KotlinKernel.spare_pool={directories['warm']}", *POOLS["warm"]],
        interrupt_mode="signal",
    )
    pools = {name: Pool(directory) for name, directory in directories.items()}
    yield pools
    for pool in pools.values():
        stop(pool)
    for pool in pools.values():
        left = [r for r in pool.records() if r.kernel_running()]
        assert left == [], f"spares left behind in {pool.directory}"


def _wait(what: str, condition: Callable[[], Any], timeout: float = SPARE_DEADLINE) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.2)
    pytest.fail(f"waited {timeout:.0f} s for {what}")


def _gone(pid: int) -> bool:
    """Whether the process ``pid`` has ended (a zombie not yet reaped by whoever inherited it has too)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _ready(pool: Pool, count: int = 1) -> list[Record]:
    """The ready spares of ``pool`` once there are ``count``; when none is ready or starting (this test runs alone),
    a start of its kernel makes one."""
    if not pool.records("starting", "ready"):
        with closing(Started(KERNELS[pool.directory.name.rstrip("0123456789").removeprefix("pool-")])) as primer:
            assert primer.spare is False
    return _wait(f"{count} ready spare(s) in {pool.directory}", lambda: len(r := pool.records("ready")) >= count and r)


def _env(**more: str) -> dict[str, str]:
    """This process's environment, as every start of a client would pass it: without the variable pytest changes for
    each test (a spare started for one test would not match the next one's start otherwise)."""
    return {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"} | more


class Started:
    def __init__(self, kernel_name: str, **kwargs: Any) -> None:
        self.began = time.monotonic()
        self.km = KernelManager(kernel_name=kernel_name)
        self.km.start_kernel(**({"env": _env()} | kwargs))
        self.kc = self.connect()

    def connect(self) -> BlockingKernelClient:
        kc = self.km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=STARTUP_TIMEOUT)
        return kc

    def info(self) -> dict[str, Any]:
        return self.kc.kernel_info(reply=True, timeout=60)["content"]

    @property
    def spare(self) -> bool:
        return bool(self.info()["kotlin_llm"]["spare"])

    @property
    def launcher(self) -> int:
        """The process the client started (and signals, waits for, kills)."""
        return int(self.km.provisioner.pid)  # type: ignore[union-attr]

    @property
    def kernel_pid(self) -> int:
        """The process that runs the kernel: the launcher itself when cold, else the spare it claimed."""
        return int(execute(self.kc, "ProcessHandle.current().pid()").result or 0)

    def close(self) -> None:
        self.kc.stop_channels()
        if self.km.is_alive():
            self.km.shutdown_kernel(now=False)


@pytest.fixture
def started() -> Iterator[list[Started]]:
    """The kernels a test started, shut down after it."""
    kernels: list[Started] = []
    yield kernels
    for kernel in kernels:
        kernel.close()


def _start(started: list[Started], kernel_name: str = "kotlin-llm-warm-test", **kwargs: Any) -> Started:
    kernel = Started(kernel_name, **kwargs)
    started.append(kernel)
    return kernel


def test_a_start_gets_a_warm_spare_whose_first_cell_is_one(pools: dict[str, Pool], started: list[Started]) -> None:
    cold = _start(started)
    first = execute(cold.kc, "1 + 1")
    cold_seconds = time.monotonic() - cold.began
    assert (first.result, cold.spare, cold.kernel_pid) == ("2", False, cold.launcher)
    spare = _ready(pools["warm"])[0]
    warm = _start(started)
    cell = execute(warm.kc, "1 + 1")
    warm_seconds = time.monotonic() - warm.began
    assert (cell.result, cell.content["execution_count"], cell.kotlin_llm["snippet"]) == ("2", 1, "snippet1.kts")
    assert warm.spare and warm.kernel_pid == spare.pid != warm.launcher
    assert warm_seconds < cold_seconds / 2, f"with a spare {warm_seconds:.2f} s, cold {cold_seconds:.2f} s"
    claimed = pools["warm"].records("claimed")
    assert [(r.id, r.data["owner_pid"]) for r in claimed] == [(spare.id, warm.launcher)]


def test_a_restart_gets_a_spare_on_the_same_ports(pools: dict[str, Pool], started: list[Started]) -> None:
    _ready(pools["warm"])
    kernel = _start(started)
    before = kernel.kernel_pid
    assert kernel.spare and execute(kernel.kc, "val kept = 1").status == "ok"
    connection = kernel.km.get_connection_info()
    _ready(pools["warm"])
    kernel.km.restart_kernel(now=False)
    kernel.kc.wait_for_ready(timeout=STARTUP_TIMEOUT)  # the client's sockets as before: same ports and key
    assert kernel.km.get_connection_info() == connection
    cell = execute(kernel.kc, "kept")
    assert (cell.status, cell.content["execution_count"]) == ("error", 1)
    assert kernel.spare and kernel.kernel_pid != before
    _wait(f"the kernel before the restart (pid {before}) to end", lambda: _gone(before), 60)


def test_two_clients_starting_at_once_each_get_a_working_kernel(pools: dict[str, Pool], started: list[Started]) -> None:
    _ready(pools["warm"])
    kernels: list[Started] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            kernels.append(Started(KERNELS["warm"]))
        except BaseException as error:  # noqa: BLE001 - said by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(STARTUP_TIMEOUT)
    started.extend(kernels)
    assert errors == [] and len(kernels) == 2
    assert len({kernel.kernel_pid for kernel in kernels}) == 2
    assert [execute(kernel.kc, "1 + 1").result for kernel in kernels] == ["2", "2"]
    assert sorted(kernel.spare for kernel in kernels) == [False, True]


def test_a_request_with_other_settings_never_gets_a_mismatched_spare(
    pools: dict[str, Pool], started: list[Started], tmp_path: Path
) -> None:
    spare = _ready(pools["warm"])[0]
    other_env = _start(started, env=_env(KOTLIN_LLM_SPARES_TEST="other"))
    other_cwd = _start(started, cwd=str(tmp_path))
    assert (other_env.spare, other_cwd.spare) == (False, False)
    assert execute(other_env.kc, 'System.getenv("KOTLIN_LLM_SPARES_TEST")').result == "other"
    assert execute(other_cwd.kc, 'System.getProperty("user.dir")').result == str(tmp_path.resolve())
    assert spare.id in [r.id for r in pools["warm"].records("ready")], "the matching spare is still there"
    # each of these starts asked for a spare of its own kind: not needed by the next tests, they end now
    others = [r for r in pools["warm"].live("starting", "ready") if r.data["signature"] != spare.data["signature"]]
    assert sorted(r.data["cwd"] for r in others) == sorted([spare.data["cwd"], str(tmp_path.resolve())])
    assert sorted(stop(pools["warm"], records=others)) == sorted(r.id for r in others)


def test_a_spare_killed_from_outside_is_never_handed_out_and_is_replaced(
    pools: dict[str, Pool], started: list[Started]
) -> None:
    spare = _ready(pools["warm"])[0]
    assert spare.pid is not None
    os.kill(spare.pid, signal.SIGKILL)
    _wait(f"the killed spare (pid {spare.pid}) to end", lambda: _gone(spare.pid))  # type: ignore[arg-type]
    kernel = _start(started)
    assert not kernel.spare and execute(kernel.kc, "1 + 1").result == "2"
    assert spare.id not in [r.id for r in pools["warm"].records()]
    replaced = _ready(pools["warm"])[0]
    again = _start(started)
    assert again.spare and again.kernel_pid == replaced.pid


@pytest.mark.parametrize("kernel_name", [KERNELS["warm"], SIGNAL_KERNEL], ids=["message", "signal"])
def test_interrupt_and_shutdown_work_on_a_handed_out_spare(
    pools: dict[str, Pool], started: list[Started], kernel_name: str
) -> None:
    _ready(pools["warm"])  # the same argv and environment as the warm kernel's: its spares serve both
    kernel = _start(started, kernel_name)
    mode = kernel.km.kernel_spec.interrupt_mode  # type: ignore[union-attr]
    assert kernel.spare and mode == ("signal" if kernel_name == SIGNAL_KERNEL else "message")
    pid, launcher = kernel.kernel_pid, kernel.launcher
    msg_id = kernel.kc.execute('println("sleeping"); Thread.sleep(60000)')
    seen = read_until(kernel.kc, msg_id, "sleeping")
    kernel.km.interrupt_kernel()
    cell = collect(kernel.kc, msg_id, timeout=60, seen=seen)
    assert cell.status == "error" and "InterruptedException" in cell.content["ename"] + str(cell.content["evalue"])
    assert execute(kernel.kc, "1 + 1").result == "2"
    kernel.kc.stop_channels()
    kernel.km.shutdown_kernel(now=False)
    assert not kernel.km.is_alive()
    _wait(f"the spare's kernel (pid {pid}) and its launcher to end", lambda: _gone(pid) and _gone(launcher), 60)
    assert pid not in [r.pid for r in pools["warm"].records()]


def test_after_the_idle_time_no_spare_is_left(pools: dict[str, Pool], started: list[Started]) -> None:
    kernel = _start(started, KERNELS["brief"])  # cold: it leaves a spare, which ends after 3 s idle
    pool = pools["brief"]
    spare = _ready(pool)[0]
    assert spare.pid is not None and not _gone(spare.pid)
    _wait("the idle spare to end", lambda: _gone(spare.pid), 60)  # type: ignore[arg-type]
    assert pool.records() == []
    assert not pool.log_file(spare.id).exists(), "a spare that ended as it should leaves no log"
    assert execute(kernel.kc, "1 + 1").result == "2"


def test_a_handed_out_kernel_ends_when_its_client_dies_without_shutting_it_down(
    pools: dict[str, Pool], started: list[Started]
) -> None:
    spare = _ready(pools["warm"])[0]
    client = subprocess.Popen([sys.executable, "-c", CLIENT], env=_env(), stdout=subprocess.PIPE, text=True)
    try:
        assert client.stdout is not None
        said = client.stdout.readline().split()
        assert said[:2] == ["spare", str(spare.pid)]
        launcher = int(said[2])
    finally:
        client.kill()  # no shutdown: the launcher sees its parent gone, as ipykernel's parent watch would
        client.wait()
    _wait(f"the kernel of the dead client (pid {spare.pid}) to end", lambda: _gone(spare.pid) and _gone(launcher), 60)  # type: ignore[arg-type]
    _wait("its record to go", lambda: spare.id not in [r.id for r in pools["warm"].live()], 60)


def test_a_handed_out_kernel_ends_when_its_launcher_is_killed(pools: dict[str, Pool], started: list[Started]) -> None:
    _ready(pools["warm"])
    kernel = _start(started)
    pid = kernel.kernel_pid
    assert kernel.spare and pid != kernel.launcher
    os.kill(kernel.launcher, signal.SIGKILL)  # what a client's kill does after its shutdown timed out
    _wait(f"the spare's kernel (pid {pid}) to end", lambda: _gone(pid), 60)
    assert not kernel.km.is_alive()


def test_a_handed_out_kernel_that_dies_is_seen_dead_by_its_client(
    pools: dict[str, Pool], started: list[Started]
) -> None:
    _ready(pools["warm"])
    kernel = _start(started)
    pid, launcher = kernel.kernel_pid, kernel.launcher
    assert kernel.spare and kernel.km.is_alive()
    os.kill(pid, signal.SIGKILL)  # a crash of the JVM, or the OOM killer
    _wait("the client to see its kernel dead", lambda: not kernel.km.is_alive(), 60)
    assert _gone(launcher)


#: A client process that starts a warm kernel and says whether it got a spare, then waits to be killed.
CLIENT = f"""
import time
from jupyter_client.manager import KernelManager
km = KernelManager(kernel_name="{KERNELS["warm"]}")
km.start_kernel()
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=120)
spare = kc.kernel_info(reply=True, timeout=60)["content"]["kotlin_llm"]["spare"]
kc.execute("ProcessHandle.current().pid()")
while True:
    message = kc.get_iopub_msg(timeout=60)
    if message["msg_type"] == "execute_result":
        break
print("spare" if spare else "cold", message["content"]["data"]["text/plain"], km.provisioner.pid, flush=True)
time.sleep(600)
"""


def test_no_spare_past_the_memory_ceiling_nor_with_a_pool_size_of_zero(
    pools: dict[str, Pool], started: list[Started]
) -> None:
    capped = _start(started, KERNELS["capped"])
    off = _start(started, KERNELS["off"])
    assert [execute(kernel.kc, "1 + 1").result for kernel in (capped, off)] == ["2", "2"]
    assert (capped.spare, off.spare) == (False, False)
    assert pools["capped"].records() == [] and pools["off"].records() == []
    assert not (pools["off"].directory / "ready").exists(), "the pool is not even looked at"


def test_the_pool_command_shows_and_stops_the_spares(pools: dict[str, Pool]) -> None:
    spare = _ready(pools["warm"])[0]
    command = [sys.executable, "-m", "kotlin_llm_kernel", "pool", "--dir", str(pools["warm"].directory)]
    shown = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
    assert shown[0] == f"Spares in {pools['warm'].directory}:"
    assert any(line.startswith(f"{spare.id}  ready     pid {spare.pid}") for line in shown[1:]), shown
    ready = [r.id for r in pools["warm"].live("starting", "ready")]
    stopped = subprocess.run([*command[:-2], "stop", *command[-2:]], capture_output=True, text=True, check=True)
    said, ids = stopped.stdout.rstrip("\n").split(": ")
    assert (said, sorted(ids.split(", "))) == (
        f"Stopped {len(ready)} spare{'s' if len(ready) != 1 else ''}",
        sorted(ready),
    )
    assert _gone(spare.pid)  # type: ignore[arg-type]
    assert pools["warm"].records("starting", "ready") == []
    listed = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    assert listed == f"No spares in {pools['warm'].directory}\n"
