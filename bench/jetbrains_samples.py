"""Runs JetBrains' sample notebooks on one kernel, cell by cell, as nbclient runs them (issue 40's acceptance bar).

``python bench/jetbrains_samples.py --samples DIR [--also NOTEBOOK]... --kernel NAME --out FILE [--commit TEXT]``
``python bench/jetbrains_samples.py --compare A.json B.json``

Each notebook runs top to bottom on a fresh kernel with nbclient (``allow_errors=True``). A cell that gives no reply
within ``--cell-timeout`` counts as failed; the kernel is interrupted and the notebook goes on (restarted when it
does not answer the interrupt). Per cell the JSON file records the notebook, the cell's index among the notebook's
cells, ok / error / timeout, the error's name and the first line of its value, and the code's first line. The
markdown summary (per notebook, cells ok / total) goes to stdout; ``--compare`` lists the cells ok on one kernel only.
Standalone (nbclient, nbformat and jupyter_client only), so that it runs from the venv of either kernel.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

OK, ERROR, TIMEOUT = "ok", "error", "timeout"
#: The ename nbclient reports (via ``error_on_timeout``) for a cell without a reply in time.
TIMEOUT_ENAME = "CellTimeout"
#: The notebooks of Kotlin/kotlin-jupyter's ``samples/`` the bar counts, in this order (the others need GPUs, CPython
#: packages or network data throughout: see bench/README.md).
SAMPLES = (
    "api-guide",
    "Welcome to Kotlin Notebook!",
    "outputs",
    "Comms",
    "LetsPlot",
    "Gral",
    "SwingExamples",
)
#: After a timed-out cell was interrupted, how long its own reply may take before the kernel is restarted.
INTERRUPT_GRACE_SECONDS = 60.0
#: Longest code line kept in the results.
CODE_CHARS = 120


@dataclass(frozen=True)
class CellResult:
    notebook: str
    cell: int  # index among the notebook's cells (markdown included), as nbclient and the research notes count
    status: str  # OK, ERROR or TIMEOUT
    ename: str | None
    evalue: str | None  # first line
    code: str  # first non-blank line of the cell


def first_line(text: str | None, limit: int = CODE_CHARS) -> str:
    """The first non-blank line of ``text``, stripped and cut to ``limit`` characters (an ellipsis marks a cut)."""
    for line in (text or "").splitlines():
        if line.strip():
            stripped = line.strip()
            return stripped if len(stripped) <= limit else stripped[: limit - 1] + "…"
    return ""


def classify(notebook: str, index: int, source: str, reply: Mapping[str, Any] | None) -> CellResult:
    """One cell's result from its ``execute_reply`` content (None: no reply at all, e.g. the kernel died)."""
    code = first_line(source)
    if reply is None:
        return CellResult(notebook, index, ERROR, "NoReply", "the kernel gave no reply", code)
    if reply.get("status") == "ok":
        return CellResult(notebook, index, OK, None, None, code)
    ename = str(reply.get("ename") or "Error")
    status = TIMEOUT if ename == TIMEOUT_ENAME else ERROR
    return CellResult(notebook, index, status, ename, first_line(str(reply.get("evalue") or ""), 300), code)


def code_cells(notebook: Mapping[str, Any]) -> list[tuple[int, str]]:
    """(index, source) of the cells nbclient executes: code cells with non-blank source."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "code" and source.strip():
            found.append((index, source))
    return found


# ---- running (nbclient) ---------------------------------------------------------------------------------------------


def _progress(message: str) -> None:
    print(f"[samples {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


async def _await_stale_reply(client: Any, grace: float) -> bool:
    """After a timed-out cell: waits for the interrupted cell's own execute_reply (nothing else is outstanding)."""
    deadline = time.monotonic() + grace
    while (left := deadline - time.monotonic()) > 0:
        try:
            message = await client.kc.shell_channel.get_msg(timeout=left)
        except Exception:  # noqa: BLE001 - queue.Empty: no reply in time
            return False
        if message["header"]["msg_type"] == "execute_reply":
            return True
    return False


async def _restart(client: Any, start_timeout: float) -> None:
    await client.km.restart_kernel(now=True)
    await client.kc.wait_for_ready(timeout=start_timeout)


async def _kernel_info(client: Any) -> dict[str, str]:
    """The kernel's implementation, its version and its language version (from a kernel_info_reply)."""
    msg_id = client.kc.kernel_info()
    while True:
        message = await client.kc.shell_channel.get_msg(timeout=60)
        if message["parent_header"].get("msg_id") == msg_id:
            content = message["content"]
            language = content.get("language_info", {})
            return {
                "implementation": str(content.get("implementation", "")),
                "implementation_version": str(content.get("implementation_version", "")),
                "language_version": str(language.get("version", "")),
            }


async def _run_cells(client: Any, name: str, notebook: Any, args: argparse.Namespace) -> list[CellResult]:
    from nbclient.exceptions import DeadKernelError

    replies: dict[int, Mapping[str, Any]] = {}

    def record(cell: Any, cell_index: int, execute_reply: Mapping[str, Any] | None) -> None:
        replies[cell_index] = execute_reply["content"] if execute_reply else {}

    client.on_cell_executed = record
    results = []
    for index, source in code_cells(notebook):
        try:
            await client.async_execute_cell(notebook.cells[index], index)
        except DeadKernelError:
            replies.pop(index, None)
            _progress(f"{name} cell {index}: the kernel died; restarted")
            await _restart(client, args.start_timeout)
        result = classify(name, index, source, replies.get(index))
        if result.status == TIMEOUT and not await _await_stale_reply(client, INTERRUPT_GRACE_SECONDS):
            _progress(f"{name} cell {index}: no answer to the interrupt; restarted")
            await _restart(client, args.start_timeout)
        if result.status != OK:
            _progress(f"{name} cell {index}: {result.status}: {result.ename}: {result.evalue}")
        results.append(result)
    return results


async def run_notebook(path: Path, args: argparse.Namespace, info: dict[str, str]) -> list[CellResult]:
    """Every code cell of one notebook on a fresh kernel ``args.kernel`` (nbclient, errors allowed)."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    scratch = Path(tempfile.mkdtemp(prefix="samples-"))  # the kernel's log, and what cells write unless --in-place
    workdir = path.parent if args.in_place else scratch
    client = NotebookClient(
        notebook,
        kernel_name=args.kernel,
        allow_errors=True,
        timeout=int(args.cell_timeout),
        startup_timeout=int(args.start_timeout),
        interrupt_on_timeout=True,
        error_on_timeout={
            "ename": TIMEOUT_ENAME,
            "evalue": f"no reply within {args.cell_timeout:g} s (interrupted)",
            "traceback": [],
        },
        resources={"metadata": {"path": str(workdir)}},
    )
    log_path = scratch / "kernel.log"
    _progress(f"{path.stem}: the kernel's output goes to {log_path}")
    with open(log_path, "ab") as log:
        async with client.async_setup_kernel(stdout=log, stderr=log):
            info.update(await _kernel_info(client))
            return await _run_cells(client, path.stem, notebook, args)


# ---- reports (pure) -------------------------------------------------------------------------------------------------


def notebooks_in_order(results: Iterable[CellResult]) -> list[str]:
    return list(dict.fromkeys(r.notebook for r in results))


def summary(results: list[CellResult], title: str) -> str:
    """Markdown: per notebook, cells ok / total, and the total."""
    lines = [f"### {title}", "", "| notebook | ok / cells |", "|---|---|"]
    for notebook in notebooks_in_order(results):
        mine = [r for r in results if r.notebook == notebook]
        lines.append(f"| {notebook} | {sum(r.status == OK for r in mine)} / {len(mine)} |")
    lines.append(f"| **total** | **{sum(r.status == OK for r in results)} / {len(results)}** |")
    return "\n".join(lines)


def _cell(text: str | None) -> str:
    """Text for a markdown table cell: pipes escaped, in code quotes when not empty."""
    if not text:
        return ""
    escaped = text.replace("|", "\\|")
    return f"`{escaped}`" if "`" not in escaped else escaped


def _failure(result: CellResult | None) -> str:
    if result is None:
        return "not run"
    return f"{result.ename}: {result.evalue}" if result.evalue else str(result.ename)


def compare(a: list[CellResult], b: list[CellResult], name_a: str, name_b: str) -> str:
    """Markdown: per notebook ok on each, then the cells ok on one kernel only with the other's error."""
    by_b = {(r.notebook, r.cell): r for r in b}
    by_a = {(r.notebook, r.cell): r for r in a}
    keys = list(dict.fromkeys([*by_a, *by_b]))
    lines = [f"| notebook | {name_a} | {name_b} | cells |", "|---|---|---|---|"]
    for notebook in dict.fromkeys(k[0] for k in keys):
        mine = [k for k in keys if k[0] == notebook]
        ok_a = sum(1 for k in mine if k in by_a and by_a[k].status == OK)
        ok_b = sum(1 for k in mine if k in by_b and by_b[k].status == OK)
        lines.append(f"| {notebook} | {ok_a} | {ok_b} | {len(mine)} |")
    total_a = sum(r.status == OK for r in a)
    total_b = sum(r.status == OK for r in b)
    lines.append(f"| **total** | **{total_a}** | **{total_b}** | **{len(keys)}** |")
    for ok_on, other, ok_map, other_map in ((name_a, name_b, by_a, by_b), (name_b, name_a, by_b, by_a)):
        only = [k for k in keys if k in ok_map and ok_map[k].status == OK and _not_ok(other_map.get(k))]
        lines += ["", f"#### Ok on {ok_on} only ({len(only)})", ""]
        lines += ["| notebook | cell | code (first line) | on " + other + " |", "|---|---|---|---|"]
        lines += [f"| {k[0]} | {k[1]} | {_cell(ok_map[k].code)} | {_cell(_failure(other_map.get(k)))} |" for k in only]
    return "\n".join(lines)


def _not_ok(result: CellResult | None) -> bool:
    return result is None or result.status != OK


def load(path: Path) -> tuple[str, list[CellResult]]:
    """The kernel name and the per-cell results of a ``--out`` file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return str(data["kernel"]), [CellResult(**cell) for cell in data["cells"]]


# ---- command line ---------------------------------------------------------------------------------------------------


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=Path, help="Kotlin/kotlin-jupyter's samples/ folder (a checkout's)")
    parser.add_argument("--also", type=Path, action="append", default=[], help="another notebook to run (repeatable)")
    parser.add_argument("--kernel", help="kernelspec name: kotlin-llm (ours), kotlin (JetBrains')")
    parser.add_argument("--out", type=Path, help="the per-cell results (JSON)")
    parser.add_argument("--commit", default="", help="which snapshot of the notebooks ran (kept in the JSON)")
    parser.add_argument("--cell-timeout", type=float, default=120.0, help="seconds per cell (default 120)")
    parser.add_argument("--start-timeout", type=float, default=180.0, help="seconds to a ready kernel (default 180)")
    parser.add_argument(
        "--in-place", action="store_true", help="run each notebook in its own folder (default: an empty temporary one)"
    )
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("A.json", "B.json"), help="compare two runs")
    args = parser.parse_args(argv)
    if args.compare is None and (args.kernel is None or args.out is None or (args.samples is None and not args.also)):
        parser.error("a run takes --kernel, --out and --samples (or --also); or use --compare A.json B.json")
    return args


def _notebook_paths(args: argparse.Namespace) -> list[Path]:
    paths = [args.samples / f"{name}.ipynb" for name in SAMPLES] if args.samples else []
    paths += args.also
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise SystemExit(f"no such notebook: {', '.join(missing)}")
    return paths


def _run(args: argparse.Namespace) -> int:
    results: list[CellResult] = []
    info: dict[str, str] = {}
    began = time.monotonic()
    for path in _notebook_paths(args):
        _progress(f"{path.stem} on {args.kernel}")
        mine = asyncio.run(run_notebook(path, args, info))
        _progress(f"{path.stem}: {sum(r.status == OK for r in mine)} of {len(mine)} ok")
        results += mine
    record = {
        "kernel": args.kernel,
        "kernel_info": info,
        "notebooks_commit": args.commit,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cell_timeout_seconds": args.cell_timeout,
        "working_directory": "the notebook's folder" if args.in_place else "an empty temporary folder",
        "wall_minutes": round((time.monotonic() - began) / 60, 1),
        "cells": [asdict(r) for r in results],
    }
    args.out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(summary(results, f"{args.kernel} ({info.get('implementation_version', '?')})"))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parse(sys.argv[1:] if argv is None else argv)
    if args.compare is not None:
        (name_a, a), (name_b, b) = load(args.compare[0]), load(args.compare[1])
        print(compare(a, b, name_a, name_b))
        return 0
    return _run(args)


if __name__ == "__main__":
    sys.exit(main())
