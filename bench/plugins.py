"""What kotlinx.serialization's compiler plugin, on in every session, costs: start-up and a long session, with the
plugin on (the default) and off (``-Dkotlinllm.compiler.plugins=``) (see bench/README.md).

``python bench/plugins.py [--starts 3] [--cells 300]``

Start-up: per mode one fresh ``kotlin-llm`` kernel first (it makes that configuration's class-data archive), then
``--starts`` fresh kernels, each timed from its start to the reply of its first cell, ``1 + 1``. Long session: per
mode one kernel runs ``--cells`` declaring cells (a value, a function and a class each); the report gives the median
cell of the first and the last 50 cells after the first 50.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time

from jupyter_client.manager import KernelManager

import environment
from environment import REPO
from kernels import OURS_KERNEL, SHUTDOWN_WAIT_SECONDS, KernelExecutor, await_iopub
from measure import median

MODES = {"on": [], "off": ["-Dkotlinllm.compiler.plugins="]}
TIMEOUT = 180.0


def _kernel(options: list[str], env: dict[str, str], cells: list[str]) -> tuple[float, list[float]]:
    """A fresh kernel running ``cells``: seconds from its start to the first cell's reply, and each cell's seconds."""
    manager = KernelManager(kernel_name=OURS_KERNEL)
    manager.shutdown_wait_time = SHUTDOWN_WAIT_SECONDS
    started = time.perf_counter()
    manager.start_kernel(env=env, extra_arguments=[f"--KotlinKernel.jvm_options={json.dumps(options)}"])
    client = manager.client()
    client.start_channels()
    try:
        executor = KernelExecutor(client, manager.is_alive)
        deadline = time.monotonic() + TIMEOUT
        msg_id = client.kernel_info()
        executor.shell_reply(msg_id, deadline, "kernel_info_reply")
        await_iopub(client, executor, msg_id, deadline)
        seconds = []
        first = 0.0
        for code in cells:
            outcome = executor.execute(code, TIMEOUT)
            if outcome.status != "ok":
                raise RuntimeError(f"cell failed: {(outcome.traceback or ['?'])[0]}")
            first = first or time.perf_counter() - started
            seconds.append(outcome.seconds)
        return first, seconds
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=3, help="timed fresh kernels per mode (default 3)")
    parser.add_argument("--cells", type=int, default=300, help="cells of the long session (default 300)")
    args = parser.parse_args(argv)
    command = shlex.join(["python", "bench/plugins.py", *(argv if argv is not None else sys.argv[1:])])
    env = environment.kernel_environment(None)
    load_before = environment.load_average()
    starts: dict[str, list[float]] = {}
    for mode, options in MODES.items():
        _kernel(options, env, ["1 + 1"])
        starts[mode] = [_kernel(options, env, ["1 + 1"])[0] for _ in range(args.starts)]
        print(f"[bench] start-up {mode}: " + ", ".join(f"{s:.2f}" for s in starts[mode]), file=sys.stderr, flush=True)
    declaring = [
        f"val value = {i}\nfun read{i}() = value\nclass Box{i}(val x: Int = value)" for i in range(1, args.cells + 1)
    ]
    sessions = {mode: _kernel(options, env, declaring)[1] for mode, options in MODES.items()}
    lines = [
        f"`{command}`, {environment.now_utc()}, repository {environment.git_revision(REPO)}, "
        f"load average {load_before} before, {environment.load_average()} after.",
        "",
        "| | plugin on | plugin off | on / off |",
        "|---|---|---|---|",
    ]
    on, off = median(starts["on"]), median(starts["off"])
    lines.append(f"| start to the first result (s, median of {args.starts}) | {on:.2f} | {off:.2f} | {on / off:.2f}× |")
    last = args.cells - 50
    for label, window in (
        ("cells 51–100", slice(50, 100)),
        (f"cells {last + 1}–{args.cells}", slice(last, args.cells)),
    ):
        a, b = median(sessions["on"][window]), median(sessions["off"][window])
        lines.append(f"| {label}: median cell (s) | {a:.3f} | {b:.3f} | {a / b:.2f}× |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
