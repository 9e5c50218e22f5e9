"""Runs notebooks cell by cell on ours and on JetBrains' kernel and compares the outcomes (see bench/README.md).

``python bench/notebooks.py NOTEBOOK.ipynb... [--kernels ours,anchor] [--cell-timeout S] [--out FILE]``

For each notebook and each kernel: a fresh kernel runs the notebook's code cells in order over jupyter_client,
every cell even after one failed; each cell is ok, error (with its error's first line) or timeout. The markdown
report (bench/compatibility.py) goes to stdout and to ``--out``; the raw outcomes to ``<work>/notebooks-*.json``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

import environment
from anchor import VERSION as ANCHOR_VERSION
from anchor import ensure_anchor
from compatibility import ANCHOR, ERROR, OK, OURS, TIMEOUT, Cell, CellResult, Comparison, NotebookRun, error_line
from compatibility import read_cells as read_notebook_cells
from compatibility import render as render_report
from environment import BENCH_DIR, REPO
from kernels import (
    IOPUB_GRACE_SECONDS,
    KERNEL_NAMES,
    OURS_KERNEL,
    SHUTDOWN_WAIT_SECONDS,
    KernelExecutor,
    await_iopub,
    find_our_kernelspec,
    kernel_info_fields,
    prepare_kernelspecs,
    spec_manager,
)
from measure import ProcessTracker, tree_usage
from sequence import CellTimeout

#: After a cell timed out and the kernel was interrupted, how long its reply may take before the kernel is restarted.
INTERRUPT_GRACE_SECONDS = 30.0


def _progress(message: str) -> None:
    print(f"[notebooks {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class KernelGone(Exception):
    """The kernel died (status ERROR), or stayed wedged after an interrupt (TIMEOUT): it must be started again."""

    def __init__(self, message: str, status: str) -> None:
        super().__init__(message)
        self.status = status


class NotebookKernel:
    """A fresh kernel for one notebook: started on entry, shut down on exit (every process it made killed)."""

    def __init__(
        self, kernel_name: str, kernels_dir: Path, env: Mapping[str, str], log_path: Path, start_timeout: float
    ) -> None:
        self._kernel_name = kernel_name
        self._kernels_dir = kernels_dir
        self._env = dict(env)
        self._log_path = log_path
        self._start_timeout = start_timeout
        self._manager: KernelManager | None = None
        self._client: BlockingKernelClient | None = None
        self._executor: KernelExecutor | None = None
        self._tracker = ProcessTracker()
        self.info: dict[str, str] = {}

    def __enter__(self) -> NotebookKernel:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        runtime = self._kernels_dir.parent / "runtime"  # connection files stay in the runner's own directory
        runtime.mkdir(parents=True, exist_ok=True)
        self._log_path.parent.mkdir(parents=True, exist_ok=True)
        manager = KernelManager(
            kernel_name=self._kernel_name,
            kernel_spec_manager=spec_manager(self._kernels_dir),
            connection_file=str(runtime / f"notebook-{self._kernel_name}.json"),
        )
        manager.shutdown_wait_time = SHUTDOWN_WAIT_SECONDS
        self._manager = manager
        with open(self._log_path, "ab") as log:
            manager.start_kernel(env=self._env, stdout=log, stderr=log)
        client = manager.client()
        client.start_channels()
        self._client = client
        executor = KernelExecutor(client, manager.is_alive)
        self._executor = executor
        deadline = time.monotonic() + self._start_timeout
        msg_id = client.kernel_info()
        reply = executor.shell_reply(msg_id, deadline, "kernel_info_reply")
        self.info = kernel_info_fields(reply["content"])
        await_iopub(client, executor, msg_id, deadline)
        self._track()

    @property
    def client(self) -> BlockingKernelClient:
        """The started kernel's client, for requests other than a cell's (bench/completion.py)."""
        if self._client is None:
            raise RuntimeError("the kernel is not running")
        return self._client

    @property
    def pid(self) -> int | None:
        """The kernel process's id, while it runs."""
        return self._manager.provisioner.pid if self._manager and self._manager.provisioner else None  # type: ignore[attr-defined]

    def alive(self) -> bool:
        return self._manager is not None and self._manager.is_alive()

    def _track(self) -> None:
        pid = self._manager.provisioner.pid if self._manager and self._manager.provisioner else None  # type: ignore[attr-defined]
        if pid is not None:
            try:
                self._tracker.record(tree_usage(pid).pids)
            except Exception:  # noqa: BLE001 - already gone
                pass

    def stop(self) -> None:
        self._track()
        if self._client is not None:
            self._client.stop_channels()
        if self._manager is not None:
            try:
                self._manager.shutdown_kernel(now=False)
            except Exception:  # noqa: BLE001
                try:
                    self._manager.shutdown_kernel(now=True)
                except Exception:  # noqa: BLE001
                    pass
        self._tracker.kill_leftovers()
        self._manager = self._client = self._executor = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def run(self, cell: Cell, timeout: float) -> CellResult:
        """Runs one cell; raises KernelGone (after recording nothing) when the kernel must be started again."""
        assert self._client is not None and self._executor is not None and self._manager is not None
        sent = time.monotonic()
        msg_id = self._client.execute(cell.source, store_history=True, allow_stdin=False)
        try:
            reply = self._executor.shell_reply(msg_id, sent + timeout, "execute_reply")
        except CellTimeout:
            self._manager.interrupt_kernel()
            try:
                self._executor.shell_reply(msg_id, time.monotonic() + INTERRUPT_GRACE_SECONDS, "execute_reply")
            except (CellTimeout, RuntimeError) as error:
                message = f"cell {cell.number} timed out and the kernel did not answer an interrupt"
                raise KernelGone(message, TIMEOUT) from error
            self._executor.iopub_until_idle(msg_id, time.monotonic() + IOPUB_GRACE_SECONDS)
            return CellResult(cell.number, TIMEOUT, f"no reply within {timeout:g} s (interrupted)", timeout)
        except RuntimeError as error:
            raise KernelGone(f"cell {cell.number}: {error}", ERROR) from error
        seconds = time.monotonic() - sent
        self._executor.iopub_until_idle(msg_id, time.monotonic() + IOPUB_GRACE_SECONDS)
        content: dict[str, Any] = reply["content"]
        if content.get("status") == "ok":
            return CellResult(cell.number, OK, None, round(seconds, 3))
        line = error_line(content.get("ename"), content.get("evalue"), content.get("traceback"))
        return CellResult(cell.number, ERROR, line, round(seconds, 3))


def run_notebook(
    notebook: str, cells: list[Cell], kind: str, kernels_dir: Path, env: Mapping[str, str], args: argparse.Namespace
) -> tuple[NotebookRun, dict[str, str]]:
    """Every cell of one notebook on a fresh kernel of ``kind``; a kernel that dies or stays wedged is started
    again (noted) and the remaining cells run on the new one."""
    run = NotebookRun(notebook, kind)
    log = args.work / "logs" / f"notebook-{Path(notebook).stem}-{kind}.log"
    kernel = NotebookKernel(KERNEL_NAMES[kind], kernels_dir, env, log, args.start_timeout)
    try:
        kernel.start()
    except Exception as error:  # noqa: BLE001 - reported; the other runs go on
        kernel.stop()
        run.notes.append(f"the kernel did not start: {type(error).__name__}: {error} (log: {log.name})")
        return run, {}
    info = kernel.info
    try:
        for cell in cells:
            try:
                result = kernel.run(cell, args.cell_timeout)
            except KernelGone as gone:
                result = CellResult(cell.number, gone.status, str(gone))
                run.notes.append(f"{gone}: restarted, the cells after it ran on a fresh kernel")
                try:
                    kernel.restart()
                except Exception as error:  # noqa: BLE001
                    run.results.append(result)
                    run.notes.append(f"the restart failed ({type(error).__name__}: {error}); later cells not run")
                    return run, info
            run.results.append(result)
            if result.status != OK:
                _progress(f"{notebook} {kind} cell {cell.number}: {result.status}: {result.error}")
    finally:
        kernel.stop()
    return run, info


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="+", type=Path, metavar="NOTEBOOK.ipynb")
    parser.add_argument(
        "--kernels", default=f"{OURS},{ANCHOR}", help="which kernels, in this order (default ours,anchor)"
    )
    parser.add_argument("--cell-timeout", type=float, default=120.0, help="seconds per cell (default 120)")
    parser.add_argument("--start-timeout", type=float, default=180.0, help="seconds to kernel_info (default 180)")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    parser.add_argument("--java-home", help="the JDK for both kernels (default: JAVA_HOME, else java on PATH)")
    parser.add_argument(
        "--anchor-version", default=ANCHOR_VERSION, help=f"kotlin-jupyter-kernel (default {ANCHOR_VERSION})"
    )
    parser.add_argument(
        "--anchor-venv", type=Path, default=BENCH_DIR / ".anchor-venv", help="default bench/.anchor-venv"
    )
    parser.add_argument("--work", type=Path, default=BENCH_DIR / ".work", help="kernelspecs, logs, raw JSON")
    args = parser.parse_args(argv)
    args.kernels = [k.strip() for k in args.kernels.split(",") if k.strip()]
    if not args.kernels or set(args.kernels) - set(KERNEL_NAMES):
        parser.error(f"--kernels takes some of {', '.join(KERNEL_NAMES)}")
    missing = [str(n) for n in args.notebooks if not n.is_file()]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    return args


def _setup(args: argparse.Namespace) -> tuple[Path, list[str], str | None]:
    """Copies the kernelspecs into ``<work>/kernels``: (that directory, the kernels found, the anchor's version)."""
    kernels, anchor_version = [], None
    anchor = None
    if ANCHOR in args.kernels:
        _progress(f"anchor: ensuring kotlin-jupyter-kernel {args.anchor_version} in {args.anchor_venv}")
        anchor = ensure_anchor(args.anchor_venv, args.anchor_version)
        anchor_version = anchor.version
    ours = find_our_kernelspec() if OURS in args.kernels else None
    if OURS in args.kernels and ours is None:
        raise SystemExit(f"no `{OURS_KERNEL}` kernelspec in this environment (`jupyter kernelspec list`)")
    kernels_dir = args.work / "kernels"
    prepare_kernelspecs(kernels_dir, ours, anchor.kernelspec if anchor else None, anchor.python if anchor else None)
    kernels = [k for k in args.kernels if (k == OURS and ours) or (k == ANCHOR and anchor)]
    return kernels_dir, kernels, anchor_version


def _names(paths: list[Path]) -> list[str]:
    """Each notebook's file name, or its path when two share a name."""
    names = [p.name for p in paths]
    return [p.name if names.count(p.name) == 1 else str(p) for p in paths]


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    args = _parse(arguments)
    shown = [Path(a).name if a.endswith(".ipynb") or Path(a).is_absolute() else a for a in arguments]  # no machine path
    command = shlex.join(["python", "bench/notebooks.py", *shown])
    began, revision = time.monotonic(), environment.git_revision(REPO)  # the code that ran, read before it runs
    env = environment.kernel_environment(args.java_home)
    kernels_dir, kernels, anchor_version = _setup(args)
    cells = {name: read_notebook_cells(path) for name, path in zip(_names(args.notebooks), args.notebooks, strict=True)}
    runs: list[NotebookRun] = []
    infos: dict[str, dict[str, str]] = {}
    for notebook, notebook_cells in cells.items():
        for kind in kernels:
            _progress(f"{notebook}: {len(notebook_cells)} cells on {kind}")
            run, info = run_notebook(notebook, notebook_cells, kind, kernels_dir, env, args)
            runs.append(run)
            if info:
                infos.setdefault(kind, info)
            ok = sum(1 for r in run.results if r.status == OK)
            _progress(f"{notebook} on {kind}: {ok} of {len(notebook_cells)} ok")
    context = [
        ("date", environment.now_utc()),
        ("repository", revision),
        *(
            (f"{kind} (kernel_info)", f"{info['implementation']}, language {info['language_version']}")
            for kind, info in infos.items()
        ),
        ("JDK (both)", environment.jdk(env)),
        ("cell timeout", f"{args.cell_timeout:g} s"),
        ("wall time", f"{(time.monotonic() - began) / 60:.1f} min"),
    ]
    if anchor_version:
        context.insert(2, ("anchor", f"kotlin-jupyter-kernel {anchor_version} from PyPI"))
    text = render_report(Comparison(cells, runs), command, context)
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    args.work.mkdir(parents=True, exist_ok=True)
    raw = args.work / f"notebooks-{time.strftime('%Y%m%d-%H%M%S')}.json"
    raw.write_text(json.dumps({"command": command, "runs": [r.to_json() for r in runs]}, indent=1), "utf-8")
    _progress(f"raw outcomes in {raw}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
