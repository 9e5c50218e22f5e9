"""The floor: the engine alone, without Jupyter, running the same cells in a fresh Python process.

The child (``python bench/floor.py …``) starts the JVM with kotlin_llm_kernel's own ``start_jvm`` and the settings
the kernel uses, creates a session as the kernel does (kotlin_llm_kernel's ``EngineSession``, over the engine's
host API), then runs each cell as ``submit(code)`` and waits for its settled event. It measures itself (one
process: Python + the embedded JVM) and prints its record as one JSON line. The parent side
(:func:`run_floor_start`) spawns it and bounds every wait.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import psutil

from measure import Sample, StartRecord, thread_cpu, tree_usage
from sequence import CellOutcome, CellTimeout, run_cells
from workload import Workload

MARKER = "BENCH-FLOOR "


def _emit(kind: str, payload: Any) -> None:
    sys.stdout.write(f"{MARKER}{kind} {json.dumps(payload)}\n")
    sys.stdout.flush()


class EngineExecutor:
    """Runs a cell on the engine session: timed from submitting it to its settled event."""

    def __init__(self, session: Any) -> None:
        from kotlin_llm_kernel.session.events import SnippetWaiter

        self._session = session
        self._events = SnippetWaiter(session)
        self.done = 0

    def execute(self, code: str, timeout: float) -> CellOutcome:
        from kotlin_llm_kernel.session.results import Value

        sent = time.monotonic()
        execution = self._session.submit(code)
        try:
            outcome = self._events.wait(execution.snippet_number, timeout=timeout).outcome
        except TimeoutError:
            execution.cancel()
            raise CellTimeout(f"no result in {timeout:.0f} s") from None
        finished = time.monotonic()
        self.done += 1
        _emit("progress", self.done)
        if isinstance(outcome, Value):
            return CellOutcome(finished - sent, finished, "ok", None if outcome.is_unit else outcome.text, None)
        return CellOutcome(finished - sent, finished, "error", None, outcome.traceback)


def jvm_memory() -> dict[str, float]:
    """Heap, metaspace, code cache (MB of 10^6 bytes) and class counts of the running JVM, via its MXBeans."""
    import jpype

    factory = jpype.JClass("java.lang.management.ManagementFactory")
    memory = factory.getMemoryMXBean()
    figures: dict[str, float] = {
        "heap used": memory.getHeapMemoryUsage().getUsed() / 1e6,
        "heap committed": memory.getHeapMemoryUsage().getCommitted() / 1e6,
        "non-heap used": memory.getNonHeapMemoryUsage().getUsed() / 1e6,
        "non-heap committed": memory.getNonHeapMemoryUsage().getCommitted() / 1e6,
    }
    for pool in factory.getMemoryPoolMXBeans():
        name = str(pool.getName())
        if name in ("Metaspace", "Compressed Class Space") or name.startswith("CodeHeap") or name == "Code Cache":
            figures[f"{name} used"] = pool.getUsage().getUsed() / 1e6
    classes = factory.getClassLoadingMXBean()
    figures["classes loaded"] = float(classes.getLoadedClassCount())
    figures["classes unloaded"] = float(classes.getUnloadedClassCount())
    return figures


def _child(arguments: list[str]) -> None:
    parser = argparse.ArgumentParser(description="engine-alone floor (run by bench/run.py)")
    parser.add_argument("--started", type=float, required=True, help="time.monotonic() when the parent spawned us")
    parser.add_argument("--index", type=int, default=1)
    parser.add_argument("--warm", type=int, default=30)
    parser.add_argument("--total", type=int, default=200)
    parser.add_argument("--cell-timeout", type=float, default=300.0)
    args = parser.parse_args(arguments)
    started = args.started
    record = StartRecord(kind="floor", index=args.index)
    try:
        record.info["python_ready_s"] = f"{time.monotonic() - started:.3f}"
        from kotlin_llm_kernel.jvm.jvm import start_jvm
        from kotlin_llm_kernel.jvm.jvm_options import JvmRequest

        # The kernel's settings: no extra classpath/options, its default tuning flags, JVM left running at exit.
        jvm = start_jvm(JvmRequest(destroy_at_exit=False))
        record.info["jvm_started_s"] = f"{time.monotonic() - started:.3f}"
        record.info["jvm_options"] = " ".join(o for o in jvm.options if not o.startswith("-Dkotlinllm."))

        import jpype
        from kotlin_llm_kernel.config.request import SessionRequest
        from kotlin_llm_kernel.session.bridge import EngineSession

        session = EngineSession(SessionRequest())  # as the kernel creates it
        created = time.monotonic() - started
        record.info["session_created_s"] = f"{created:.3f}"
        usage = tree_usage(os.getpid())
        record.samples.append(Sample("start", created, usage.rss_bytes, usage.cpu_seconds))
        record.threads["start"] = thread_cpu(os.getpid())
        record.jvm_memory["start"] = jvm_memory()
        workload = Workload(args.warm, args.total)
        last = f"cell{workload.total}"

        def on_sample(label: str) -> None:
            record.jvm_memory[label] = jvm_memory()
            if label in ("cell1", last):
                record.threads[label] = thread_cpu(os.getpid())

        executor = EngineExecutor(session)
        run_cells(record, workload, executor, lambda: tree_usage(os.getpid()), started, args.cell_timeout, on_sample)
        if record.failure is None:
            jpype.JClass("java.lang.System").gc()  # after the last sample: what the session really keeps
            record.jvm_memory[f"{last} after System.gc()"] = jvm_memory()
    except Exception as error:  # noqa: BLE001 - reported in the record
        record.failure = record.failure or f"{type(error).__name__}: {error}"
    _emit("result", record.to_json())
    os._exit(0)  # the JVM is not destroyed (as in the kernel): its non-daemon threads cannot hold us


def _kill_tree(process: subprocess.Popen[bytes]) -> None:
    try:
        root = psutil.Process(process.pid)
        victims = [*root.children(recursive=True), root]
    except psutil.Error:
        victims = []
    for victim in victims:
        try:
            victim.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(victims, timeout=10)
    process.wait(timeout=10)


def run_floor_start(
    index: int,
    workload: Workload,
    start_timeout: float,
    cell_timeout: float,
    env: Mapping[str, str],
    log_path: Path,
) -> StartRecord:
    """Spawns one floor child and collects its record; a silent child is killed after the timeouts."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--index", str(index), "--warm", str(workload.warm), "--total", str(workload.total),
        "--cell-timeout", str(cell_timeout),
    ]  # fmt: skip
    with open(log_path, "wb") as log:
        started = time.monotonic()
        process = subprocess.Popen(
            [*command, "--started", repr(started)], stdout=subprocess.PIPE, stderr=log, env=dict(env)
        )
        assert process.stdout is not None
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)
        buffer, result, failure = b"", None, None
        deadline = started + start_timeout + cell_timeout  # the first cell includes the start
        while result is None and failure is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(timeout=remaining):
                failure = "the engine gave no result within the timeout (killed)"
                break
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                failure = f"the floor process ended without a result (exit code {process.wait(timeout=30)})"
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                text = line.decode("utf-8", errors="replace")
                if not text.startswith(MARKER):
                    log.write(line + b"\n")  # anything else the JVM printed on stdout
                    continue
                kind, _, payload = text[len(MARKER) :].partition(" ")
                if kind == "progress":
                    deadline = time.monotonic() + cell_timeout
                elif kind == "result":
                    result = json.loads(payload)
        selector.close()
        if process.poll() is None:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                _kill_tree(process)
    if result is None:
        record = StartRecord(kind="floor", index=index, failure=failure)
        record.info["log"] = log_path.name  # under <work>/logs
        return record
    return StartRecord.from_json(result)


if __name__ == "__main__":
    _child(sys.argv[1:])
