"""Driving fresh Jupyter kernels with jupyter_client: one start = launch, kernel_info, the workload, shutdown.

The kernelspecs are copied into a directory the benchmark owns (``<work>/kernels``) and jupyter_client is pointed
at it alone, so the user's own kernels (or another ``kotlin``) cannot be picked up by mistake.
"""

from __future__ import annotations

import json
import queue
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from jupyter_client.manager import KernelManager
from jupyter_client.provisioning import LocalProvisioner

from compatibility import ANCHOR, OURS
from measure import ProcessTracker, Sample, StartRecord, thread_cpu, tree_usage
from sequence import CellOutcome, CellTimeout, run_cells
from workload import Workload

OURS_KERNEL = "kotlin-llm"
ANCHOR_KERNEL = "kotlin"
#: The kernel of each kind of run.
KERNEL_NAMES = {OURS: OURS_KERNEL, ANCHOR: ANCHOR_KERNEL}

#: How long the kernel may take to acknowledge a shutdown_request before it is killed.
SHUTDOWN_WAIT_SECONDS = 10.0
#: After a cell's reply, how long its remaining iopub messages (result, idle status) may take.
IOPUB_GRACE_SECONDS = 30.0


@dataclass(frozen=True)
class Timeouts:
    start: float = 120.0  # launch → kernel_info reply and iopub connected
    cell: float = 300.0  # request → reply, per cell


def _copy_spec(source: Path, target: Path, interpreter: str) -> None:
    """Copies a kernelspec, replacing a bare ``python`` in its argv by ``interpreter``.

    jupyter_client would replace it by *its own* interpreter, which is wrong for a kernel living in another venv.
    """
    shutil.copytree(source, target)
    spec_file = target / "kernel.json"
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    if spec["argv"] and spec["argv"][0] in ("python", "python3"):
        spec["argv"][0] = interpreter
    spec_file.write_text(json.dumps(spec, indent=1), encoding="utf-8")


def find_our_kernelspec() -> Path | None:
    """Where the current environment's Jupyter finds ``kotlin-llm`` (as `jupyter kernelspec list` shows it)."""
    try:
        return Path(KernelSpecManager().get_kernel_spec(OURS_KERNEL).resource_dir)
    except NoSuchKernel:
        return None


def prepare_kernelspecs(kernels_dir: Path, ours: Path | None, anchor: Path | None, anchor_python: Path | None) -> None:
    """Fills ``kernels_dir`` with the kernelspecs to benchmark (each only when found)."""
    if kernels_dir.exists():
        shutil.rmtree(kernels_dir)
    kernels_dir.mkdir(parents=True)
    if ours is not None:
        _copy_spec(ours, kernels_dir / OURS_KERNEL, sys.executable)
    if anchor is not None and anchor_python is not None:
        _copy_spec(anchor, kernels_dir / ANCHOR_KERNEL, str(anchor_python))


@dataclass(frozen=True)
class Variant:
    """Ours with some settings changed: kernel environment variables and extra kernel arguments."""

    name: str
    env: tuple[tuple[str, str], ...]
    arguments: tuple[str, ...]

    @property
    def kind(self) -> str:
        return f"ours-{self.name}"

    @classmethod
    def parse(cls, text: str) -> Variant:
        """``NAME=ITEM[;ITEM…]``: an item ``--x=…`` is a kernel argument, ``VAR=value`` an environment variable."""
        name, _, items = text.partition("=")
        if not name or not items or not name.replace("-", "").isalnum():
            raise ValueError(f"--variant takes NAME=ITEM[;ITEM…], got {text!r}")
        env: list[tuple[str, str]] = []
        arguments: list[str] = []
        for item in filter(None, (i.strip() for i in items.split(";"))):
            if item.startswith("--"):
                arguments.append(item)
            elif "=" in item:
                variable, _, value = item.partition("=")
                env.append((variable, value))
            else:
                raise ValueError(f"--variant item {item!r} is neither --argument=… nor VAR=value")
        return cls(name, tuple(env), tuple(arguments))

    def describe(self) -> str:
        return "; ".join([*(f"`{k}={v}`" for k, v in self.env), *(f"`{a}`" for a in self.arguments)])


def prepare_variant(kernels_dir: Path, variant: Variant) -> None:
    """Copies our prepared kernelspec as ``kotlin-llm-<name>`` with the variant's changes."""
    target = kernels_dir / f"{OURS_KERNEL}-{variant.name}"
    shutil.copytree(kernels_dir / OURS_KERNEL, target)
    spec_file = target / "kernel.json"
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    spec["argv"] += list(variant.arguments)
    spec["env"] = {**spec.get("env", {}), **dict(variant.env)}
    spec_file.write_text(json.dumps(spec, indent=1), encoding="utf-8")


def spec_manager(kernels_dir: Path) -> KernelSpecManager:
    return KernelSpecManager(kernel_dirs=[str(kernels_dir)])


class KernelExecutor:
    """Executes cells on a started kernel: timed from sending the request to receiving its ``execute_reply``."""

    def __init__(self, client: BlockingKernelClient, alive: Callable[[], bool], pid: int | None = None) -> None:
        self._client = client
        self._alive = alive
        #: The kernel's process, when known (a local kernel).
        self.pid = pid

    @property
    def client(self) -> BlockingKernelClient:
        """The kernel's client, for requests other than cells (their replies read with :meth:`shell_reply`)."""
        return self._client

    def shell_reply(self, msg_id: str, deadline: float, what: str) -> dict[str, Any]:
        """The shell reply to ``msg_id``; polls once a second so a dead kernel is noticed without the timeout."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CellTimeout(f"no {what} within the timeout")
            try:
                message = self._client.get_shell_msg(timeout=min(1.0, remaining))
            except queue.Empty:
                if not self._alive():
                    raise RuntimeError(f"the kernel died before its {what}") from None
                continue
            if message["parent_header"].get("msg_id") == msg_id:
                return message

    def iopub_until_idle(self, msg_id: str, deadline: float) -> tuple[bool, str | None]:
        """Reads the iopub messages of ``msg_id`` until its idle status: (idle seen, text/plain result)."""
        text: str | None = None
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                message = self._client.get_iopub_msg(timeout=remaining)
            except queue.Empty:
                break
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "execute_result":
                text = content.get("data", {}).get("text/plain")
            elif kind == "status" and content.get("execution_state") == "idle":
                return True, text
        return False, text

    def execute(self, code: str, timeout: float) -> CellOutcome:
        sent = time.monotonic()
        msg_id = self._client.execute(code, store_history=True, allow_stdin=False)
        reply = self.shell_reply(msg_id, sent + timeout, "execute_reply")
        finished = time.monotonic()
        content = reply["content"]
        _, text = self.iopub_until_idle(msg_id, finished + IOPUB_GRACE_SECONDS)
        status = content.get("status", "?")
        traceback = list(content.get("traceback") or []) if status == "error" else None
        return CellOutcome(finished - sent, finished, status, text, traceback)


def await_iopub(client: BlockingKernelClient, executor: KernelExecutor, msg_id: str, deadline: float) -> None:
    """Returns once iopub is connected, i.e. delivers the idle status of a kernel_info request (``msg_id``, whose
    reply has arrived; asks again if iopub connected too late to see the first one)."""
    while not executor.iopub_until_idle(msg_id, min(deadline, time.monotonic() + 1.0))[0]:
        if time.monotonic() >= deadline:
            raise CellTimeout("iopub did not connect within the start timeout")
        msg_id = client.kernel_info()
        executor.shell_reply(msg_id, deadline, "kernel_info_reply")


@contextmanager
def ready_kernel(env: Mapping[str, str], arguments: list[str], timeout: float) -> Iterator[KernelExecutor]:
    """A fresh ``kotlin-llm`` kernel started with ``arguments``, its ``kernel_info`` answered and its iopub idle,
    as an executor of cells; shut down on leaving."""
    manager = KernelManager(kernel_name=OURS_KERNEL)
    manager.shutdown_wait_time = SHUTDOWN_WAIT_SECONDS
    manager.start_kernel(env=dict(env), extra_arguments=arguments)
    client = manager.client()
    client.start_channels()
    try:
        provisioner = manager.provisioner
        pid = provisioner.pid if isinstance(provisioner, LocalProvisioner) else None
        executor = KernelExecutor(client, manager.is_alive, pid)
        deadline = time.monotonic() + timeout
        msg_id = client.kernel_info()
        executor.shell_reply(msg_id, deadline, "kernel_info_reply")
        await_iopub(client, executor, msg_id, deadline)
        yield executor
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)


def result_text(client: BlockingKernelClient, msg_id: str, deadline: float) -> str | None:
    """The text/plain execute_result of ``msg_id``, reading iopub up to its idle status."""
    text: str | None = None
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            message = client.get_iopub_msg(timeout=remaining)
        except queue.Empty:
            break
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "execute_result":
            text = message["content"].get("data", {}).get("text/plain")
        elif message["msg_type"] == "status" and message["content"].get("execution_state") == "idle":
            break
    return text


def kernel_info_fields(content: Mapping[str, Any]) -> dict[str, str]:
    banner = str(content.get("banner", "")).strip().splitlines()
    return {
        "implementation": f"{content.get('implementation', '?')} {content.get('implementation_version', '?')}",
        "language_version": str(content.get("language_info", {}).get("version", "?")),
        "banner": banner[0] if banner else "",
    }


def run_kernel_start(
    kind: str,
    index: int,
    kernel_name: str,
    kernels_dir: Path,
    workload: Workload,
    timeouts: Timeouts,
    env: Mapping[str, str],
    log_path: Path,
) -> StartRecord:
    """One fresh start of ``kernel_name``: every figure of the record, or as many as it got before failing."""
    record = StartRecord(kind=kind, index=index)
    tracker = ProcessTracker()
    runtime = kernels_dir.parent / "runtime"  # connection files stay in the benchmark's own directory
    runtime.mkdir(parents=True, exist_ok=True)
    manager = KernelManager(
        kernel_name=kernel_name,
        kernel_spec_manager=spec_manager(kernels_dir),
        connection_file=str(runtime / f"kernel-{kind}-{index}.json"),
    )
    manager.shutdown_wait_time = SHUTDOWN_WAIT_SECONDS
    client: BlockingKernelClient | None = None
    pid: int | None = None
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        started = time.monotonic()
        try:
            manager.start_kernel(env=dict(env), stdout=log, stderr=log)
            pid = manager.provisioner.pid  # type: ignore[union-attr]
            assert pid is not None
            client = manager.client()
            client.start_channels()
            executor = KernelExecutor(client, manager.is_alive)

            def sample() -> Any:
                usage = tree_usage(pid)
                tracker.record(usage.pids)
                return usage

            deadline = started + timeouts.start
            msg_id = client.kernel_info()
            reply = executor.shell_reply(msg_id, deadline, "kernel_info_reply")
            record.kernel_info_s = time.monotonic() - started
            usage = sample()
            record.samples.append(Sample("start", record.kernel_info_s, usage.rss_bytes, usage.cpu_seconds))
            record.info.update(kernel_info_fields(reply["content"]))
            record.threads["start"] = thread_cpu(pid)
            await_iopub(client, executor, msg_id, deadline)
            thread_labels = {"cell1", f"cell{workload.total}"}

            def on_sample(label: str) -> None:
                if label in thread_labels:
                    record.threads[label] = thread_cpu(pid)

            run_cells(record, workload, executor, sample, started, timeouts.cell, on_sample)
        except Exception as error:  # noqa: BLE001 - recorded; the benchmark goes on with the next start
            record.failure = record.failure or f"{type(error).__name__}: {error}"
        finally:
            if pid is not None:
                try:
                    tracker.record(tree_usage(pid).pids)
                except Exception:  # noqa: BLE001 - already gone
                    pass
            if client is not None:
                client.stop_channels()
            try:
                manager.shutdown_kernel(now=False)
            except Exception:  # noqa: BLE001
                try:
                    manager.shutdown_kernel(now=True)
                except Exception:  # noqa: BLE001
                    pass
            leftovers = tracker.kill_leftovers()
            if leftovers:
                record.info["killed_after_shutdown"] = ",".join(map(str, leftovers))
    if record.failure:
        record.info["log"] = log_path.name  # under <work>/logs
    return record
