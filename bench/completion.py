"""Completion latency on ours and on JetBrains' kernel, and completion while a cell runs (issue 13; bench/README.md).

``python bench/completion.py [--starts N] [--repeats N] [--java-home DIR]``

Each round starts a fresh kernel of each kind in turn (``kotlin-llm``, then the anchor ``kotlin``), runs the setup
cells, times ``complete_request`` → ``complete_reply`` for every case ``--repeats`` times, then sends a completion
(shell) and a kernel_info (control) while a 3 s cell runs. Only the Jupyter protocol is used, so how a kernel
completes does not matter. The "Completion" section of ``--results`` is replaced (the other sections are kept),
the raw per-start records go to ``<work>/completion-*.json``.
"""

from __future__ import annotations

import argparse
import json
import queue
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq
from jupyter_client.blocking.client import BlockingKernelClient

import environment
from anchor import VERSION as ANCHOR_VERSION
from anchor import ensure_anchor
from compatibility import OK, Cell
from completion_report import (
    ANCHOR,
    CASES,
    CONTROL_TIMEOUT_SECONDS,
    HEADING,
    KINDS,
    MARKER_WAIT_SECONDS,
    OURS,
    PROBE_CASE,
    SETUP_CELLS,
    SLEEP_CELL,
    SLEEP_MARKER,
    Case,
    CaseRun,
    Probe,
    Start,
    check,
    offered_names,
    render,
    replace_section,
)
from environment import BENCH_DIR, REPO
from kernels import KERNEL_NAMES, OURS_KERNEL, find_our_kernelspec, prepare_kernelspecs, result_text
from notebooks import NotebookKernel

Reply = tuple[float, dict[str, Any]]  # (time.monotonic() at arrival, the message)


def _progress(message: str) -> None:
    print(f"[completion {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Replies:
    """Shell and control replies by their request's msg_id, each with its arrival time.

    Requests in flight together may be answered in any order; reading both channels with one poller keeps every
    reply (none is dropped while another is awaited) and times each when it arrives, not when it is asked for.
    """

    def __init__(self, client: BlockingKernelClient, alive: Callable[[], bool]) -> None:
        self._alive = alive
        self._channels = {client.shell_channel.socket: client.shell_channel}
        self._channels[client.control_channel.socket] = client.control_channel
        self._poller = zmq.Poller()
        for socket in self._channels:
            self._poller.register(socket, zmq.POLLIN)
        self._arrived: dict[str, Reply] = {}

    def _read(self, timeout: float) -> None:
        for socket, _ in self._poller.poll(max(0, int(timeout * 1000))):
            message = self._channels[socket].get_msg(timeout=0)
            parent = message["parent_header"].get("msg_id")
            if parent:
                self._arrived[parent] = (time.monotonic(), message)

    def wait(self, msg_id: str, deadline: float) -> Reply | None:
        """The reply to ``msg_id``, or None when none came before ``deadline``; raises when the kernel died."""
        while msg_id not in self._arrived:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self._read(min(remaining, 0.5))
            if msg_id not in self._arrived and not self._alive():
                raise RuntimeError("the kernel died")
        return self._arrived.pop(msg_id)


def _control_kernel_info(client: BlockingKernelClient) -> str:
    # BlockingKernelClient.kernel_info() goes to shell; the control channel's answer is what must stay immediate
    message = client.session.msg("kernel_info_request")
    client.control_channel.send(message)
    return str(message["header"]["msg_id"])


def _drain_iopub(client: BlockingKernelClient) -> None:
    """Drops the status messages the completions left on iopub, so the probe reads only its cell's."""
    while True:
        try:
            client.get_iopub_msg(timeout=0)
        except queue.Empty:
            return


def time_case(client: BlockingKernelClient, replies: Replies, case: Case, repeats: int, timeout: float) -> CaseRun:
    """``repeats`` completions of ``case`` in a row; a request without a reply in time ends the case."""
    run = CaseRun(case.code)
    content: dict[str, Any] | None = None
    for _ in range(repeats):
        sent = time.monotonic()
        got = replies.wait(client.complete(case.code, len(case.code)), sent + timeout)
        if got is None:
            run.seconds.append(None)
            break
        run.seconds.append(got[0] - sent)
        content = got[1]["content"]
    if content is not None:
        run.matches = len(content.get("matches") or [])
        run.missing, run.unwanted = check(case, offered_names(case.code, content))
    return run


def _await_marker(client: BlockingKernelClient, msg_id: str, deadline: float) -> bool:
    """Whether the cell's output :data:`SLEEP_MARKER` arrived on iopub before ``deadline``."""
    while (remaining := deadline - time.monotonic()) > 0:
        try:
            message = client.get_iopub_msg(timeout=remaining)
        except queue.Empty:
            return False
        if message["parent_header"].get("msg_id") == msg_id and message["msg_type"] == "stream":
            if SLEEP_MARKER in message["content"].get("text", ""):
                return True
    return False


def probe(client: BlockingKernelClient, replies: Replies, args: argparse.Namespace, result: Probe) -> Probe:
    """Completion on shell and kernel_info on control while :data:`SLEEP_CELL` runs."""
    _drain_iopub(client)
    sent = time.monotonic()
    execute_id = client.execute(SLEEP_CELL, allow_stdin=False)
    result.marker_seen = _await_marker(client, execute_id, sent + MARKER_WAIT_SECONDS)
    asked = time.monotonic()
    result.sent_into_cell = asked - sent
    complete_id = client.complete(PROBE_CASE.code, len(PROBE_CASE.code))
    control_id = _control_kernel_info(client)
    if (control := replies.wait(control_id, asked + CONTROL_TIMEOUT_SECONDS)) is not None:
        result.control = control[0] - asked
    executed = replies.wait(execute_id, sent + args.cell_timeout)
    completed = replies.wait(complete_id, max(asked, executed[0] if executed else 0.0) + args.complete_timeout)
    if completed is not None:
        result.completion = completed[0] - asked
        result.completion_matches = len(completed[1]["content"].get("matches") or [])
    if executed is not None:
        result.cell = executed[0] - sent
        result.cell_status = executed[1]["content"].get("status")
        result.cell_result = result_text(client, execute_id, time.monotonic() + args.complete_timeout)
        if completed is not None:
            result.after_cell_end = completed[0] - executed[0]
    return result


def _setup_cell(kernel: NotebookKernel, source: str, timeout: float) -> None:
    outcome = kernel.run(Cell(0, source), timeout)
    if outcome.status != OK:
        raise RuntimeError(f"setup cell {source!r}: {outcome.status} {outcome.error or ''}")


def run_start(kind: str, index: int, kernels_dir: Path, env: dict[str, str], args: argparse.Namespace) -> Start:
    """One fresh kernel: setup cells, every case, the probe; every process it made is killed at the end."""
    start = Start(kind, index)
    log = args.work / "logs" / f"completion-{kind}-{index}.log"
    kernel = NotebookKernel(KERNEL_NAMES[kind], kernels_dir, env, log, args.start_timeout)
    try:
        kernel.start()
        start.info.update(kernel.info)
        for source in SETUP_CELLS:
            _setup_cell(kernel, source, args.cell_timeout)
        replies = Replies(kernel.client, kernel.alive)
        for case in CASES:
            start.cases.append(time_case(kernel.client, replies, case, args.repeats, args.complete_timeout))
        alone = kernel.run(Cell(0, SLEEP_CELL), args.cell_timeout)  # what the probe's cell takes undisturbed
        start.probe = probe(
            kernel.client, replies, args, Probe(cell_alone=alone.seconds if alone.status == OK else None)
        )
    except Exception as error:  # noqa: BLE001 - recorded; the benchmark goes on with the next start
        start.failure = f"{type(error).__name__}: {error} (log: {log.name})"
    finally:
        kernel.stop()
    return start


def _describe(start: Start) -> str:
    warm = [s for run in start.cases for s in run.warm]
    text = f"{len(start.cases)} cases, median {sorted(warm)[len(warm) // 2]:.3f} s" if warm else "no completion"
    if start.probe is not None and start.probe.after_cell_end is not None:
        text += f"; completion during the cell: reply {start.probe.after_cell_end:+.2f} s from the cell's end"
    return text + (f"; FAILED: {start.failure}" if start.failure else "")


def _prepare_archive(env: dict[str, str], notes: list[str]) -> None:
    """Makes our class-data sharing archive first, so that its background maker does not run during a start."""
    done = subprocess.run(
        [sys.executable, "-m", "kotlin_llm_kernel.cds"], env=env, capture_output=True, text=True, timeout=1800
    )
    if done.returncode != 0:
        notes.append(f"The class-data sharing archive could not be made: {done.stderr.strip()[-300:]}")


def _prepare(args: argparse.Namespace, env: dict[str, str], notes: list[str]) -> list[str]:
    """Installs the anchor if needed and copies the kernelspecs into ``<work>/kernels``; the kinds that can run."""
    anchor = None
    if ANCHOR in args.kinds:
        try:
            anchor = ensure_anchor(args.anchor_venv, args.anchor_version)
        except Exception as error:  # noqa: BLE001 - reported; ours still runs
            notes.append(f"The anchor could not be installed, so it was not run: {error}")
    ours = find_our_kernelspec() if OURS in args.kinds else None
    if OURS in args.kinds and ours is None:
        notes.append(f"No `{OURS_KERNEL}` kernelspec in this environment (`jupyter kernelspec list`): ours not run.")
    prepare_kernelspecs(
        args.work / "kernels", ours, anchor.kernelspec if anchor else None, anchor.python if anchor else None
    )
    if ours is not None:
        _prepare_archive(env, notes)
    return [k for k in args.kinds if (k == OURS and ours is not None) or (k == ANCHOR and anchor is not None)]


def _kernel_lines(starts: list[Start]) -> list[tuple[str, str]]:
    described: list[tuple[str, str]] = []
    for kind in KINDS:
        info = next((s.info for s in starts if s.kind == kind and "implementation" in s.info), None)
        if info:
            described.append((kind, f"{info['implementation']}, language {info['language_version']}"))
    return described


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3, help="fresh kernels of each kind (default 3)")
    parser.add_argument("--repeats", type=int, default=5, help="completions per case and start (default 5)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="what to run, in this order (default ours,anchor)")
    parser.add_argument("--complete-timeout", type=float, default=30.0, help="seconds per completion (default 30)")
    parser.add_argument("--cell-timeout", type=float, default=120.0, help="seconds per cell (default 120)")
    parser.add_argument("--start-timeout", type=float, default=180.0, help="seconds to kernel_info (default 180)")
    parser.add_argument("--java-home", help="the JDK for both (default: JAVA_HOME, else java on PATH)")
    parser.add_argument("--anchor-version", default=ANCHOR_VERSION, help=f"default {ANCHOR_VERSION}")
    parser.add_argument("--anchor-venv", type=Path, default=BENCH_DIR / ".anchor-venv", help="the anchor's venv")
    parser.add_argument("--work", type=Path, default=BENCH_DIR / ".work", help="kernelspecs, logs, raw JSON")
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "RESULTS.md", help="the report's file")
    parser.add_argument("--note", action="append", default=[], help="a line added to the report (repeatable)")
    args = parser.parse_args(argv)
    args.kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    if not args.kinds or set(args.kinds) - set(KINDS):
        parser.error(f"--kinds takes some of {', '.join(KINDS)}")
    if args.starts < 1 or args.repeats < 1:
        parser.error("--starts and --repeats must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    args = _parse(arguments)
    command = shlex.join(["python", "bench/completion.py", *arguments])
    revision = environment.git_revision(REPO)
    load_before = environment.load_average()
    env = environment.kernel_environment(args.java_home)
    notes: list[str] = []
    began = time.monotonic()
    kinds = _prepare(args, env, notes)
    starts: list[Start] = []
    for index in range(1, args.starts + 1):
        for kind in kinds:
            _progress(f"{kind} #{index}: starting")
            starts.append(run_start(kind, index, args.work / "kernels", env, args))
            _progress(f"{kind} #{index}: {_describe(starts[-1])}")
    notes += [f"{s.kind} #{s.index} failed: {s.failure}" for s in starts if s.failure]
    context = [
        ("date", environment.now_utc()),
        ("repository", revision),
        *_kernel_lines(starts),
        ("JDK (both)", environment.jdk(env)),
        ("load average before / after", f"{load_before} / {environment.load_average()}"),
        ("wall time", f"{(time.monotonic() - began) / 60:.1f} min"),
        *(("note", note) for note in args.note),
    ]
    text = render(starts, CASES, command, context, notes)
    print(text)
    previous = args.results.read_text(encoding="utf-8") if args.results.exists() else ""
    args.results.write_text(replace_section(previous, HEADING, text), encoding="utf-8")
    raw = args.work / f"completion-{time.strftime('%Y%m%d-%H%M%S')}.json"
    raw.write_text(json.dumps({"command": command, "starts": [s.to_json() for s in starts]}, indent=1), "utf-8")
    _progress(f"wrote the Completion section of {args.results} and {raw}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
