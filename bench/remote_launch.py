"""Time to the first result: our kernel started as usual, and as a Kubernetes pod starts it (issue 14, item 2).

``python bench/remote_launch.py [--starts N]``

Each round starts, in turn, a fresh kernel of each variant and times ``start_kernel()`` → the ``execute_reply`` of a
first ``1 + 1`` (its result checked), then shuts it down and waits for its processes to end:

- **local**: the ``kotlin-llm`` kernelspec (``python -m kotlin_llm_kernel``) with jupyter_client's local provisioner;
- **pod**: the pod's command on 127.0.0.1, driven by gateway_provisioners' provisioner as tests/test_remote_launcher.py
  does (bootstrap-kernel.sh, our launcher in its Python slot, the encrypted connection info to the provisioner's
  response address, the provisioner's 0.5 s polls while it waits for it);
- **pod, no early start** (``KOTLIN_LLM_EARLY_START=0``) and **pod, no archive** (``KOTLIN_LLM_CDS=0``): the same, to
  show what the early JVM start and the class-data sharing archive bring under the launcher, and **local, no early
  start** to compare the early start's share with a local start's.

Ratios are taken within a round (the variants of one round ran one after the other) and their median is shown, so
that a change of the machine's load between rounds weighs less.

The class-data sharing archive is made first (``python -m kotlin_llm_kernel.cds``), as bench/run.py does. The
"Remote kernels" section of ``--results`` is replaced (the other sections are kept).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from completion_report import replace_section
from environment import BENCH_DIR, REPO, free_port
from timed_start import median_text, started_kernel

DEPLOY = REPO / "deploy"
HEADING = "## Remote kernels"
LOCAL, LOCAL_NO_EARLY = "local", "local, no early start"
POD, POD_NO_EARLY, POD_NO_CDS = "pod", "pod, no early start", "pod, no archive"
VARIANTS = {
    LOCAL: ("kotlin-llm", {}),
    LOCAL_NO_EARLY: ("kotlin-llm", {"KOTLIN_LLM_EARLY_START": "0"}),
    POD: ("kotlin-llm-pod", {}),
    POD_NO_EARLY: ("kotlin-llm-pod", {"KOTLIN_LLM_EARLY_START": "0"}),
    POD_NO_CDS: ("kotlin-llm-pod", {"KOTLIN_LLM_CDS": "0"}),
}
TIMEOUT = 180


def write_pod_kernelspec(jupyter: Path, log_dir: Path) -> None:
    """The Kubernetes kernelspec's language and interrupt mode, as deploy/make-kernelspec.sh makes it with
    gateway_provisioners' tool, with the pod's command and environment."""
    made = jupyter.parent / "generated"
    env = os.environ | {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["bash", str(DEPLOY / "make-kernelspec.sh"), "--out", str(made)], env=env, check=True, timeout=120)
    generated = json.loads((made / "kotlin_llm_k8s" / "kernel.json").read_text(encoding="utf-8"))
    found = importlib.util.find_spec("gateway_provisioners")
    assert found is not None and found.origin is not None, "pip install gateway_provisioners==0.5.0"
    bootstrap = Path(found.origin).parent / "kernel-launchers" / "bootstrap" / "bootstrap-kernel.sh"
    argv = generated["argv"]
    pod_environment = [
        "KERNEL_ID={kernel_id}",
        "RESPONSE_ADDRESS={response_address}",
        "PUBLIC_KEY={public_key}",
        "PORT_RANGE={port_range}",
        "KERNEL_SPARK_CONTEXT_INIT_MODE=none",
        f"KERNEL_CLASS_NAME={argv[argv.index('--kernel-class-name') + 1]}",
    ]
    spec = {
        "argv": ["env", *pod_environment, "bash", str(bootstrap)],
        "display_name": "Kotlin (LLM) as a pod, on 127.0.0.1",
        "language": generated["language"],
        "interrupt_mode": generated["interrupt_mode"],
        "env": {
            "KERNEL_LAUNCHERS_DIR": str(DEPLOY / "kernel-launchers"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "KOTLIN_LLM_KERNEL_IP": "127.0.0.1",
            "KERNEL_USERNAME": "kotlin-llm-bench",
        },
        "metadata": {
            "kernel_provisioner": {
                "provisioner_name": "distributed-provisioner",
                "config": {"remote_hosts": ["127.0.0.1"], "launch_timeout": TIMEOUT},
            }
        },
    }
    directory = jupyter / "kernels" / "kotlin-llm-pod"
    directory.mkdir(parents=True)
    (directory / "kernel.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")


async def first_result(kernel_name: str, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from ``start_kernel()`` to its return, and to the first cell's reply; the kernel is shut down after."""
    async with started_kernel(kernel_name, env, TIMEOUT) as kernel:
        return kernel.returned, kernel.first


def ratio(results: dict[str, list[tuple[float, float]]], name: str, base: str) -> float:
    """The median over the rounds of ``name``'s first result over ``base``'s in the same round."""
    return statistics.median(a[1] / b[1] for a, b in zip(results[name], results[base], strict=True))


def render(results: dict[str, list[tuple[float, float]]], starts: int, command: str, load: tuple[float, float]) -> str:
    lines = [
        HEADING,
        "",
        f"`{command}`: {starts} rounds, each starting every variant once, in turn, on a {os.cpu_count()}-core machine",
        f"shared with other work (1-minute load average {load[0]:.1f} at the start, {load[1]:.1f} at the end: read the",
        "ratios). *First result*: `start_kernel()` → the `execute_reply` of a first `1 + 1`; *start returned*:",
        "`start_kernel()` → its return (for a pod: once the provisioner has the connection info). Times: median",
        "[min–max]; ratios: median of the per-round ratios.",
        "",
        "| variant | start returned | first result | first result / local's |",
        "|---|---|---|---|",
    ]
    for name, runs in results.items():
        returned, first = median_text([r[0] for r in runs]), median_text([r[1] for r in runs])
        lines.append(f"| {name} | {returned} | {first} | {ratio(results, name, LOCAL):.2f} |")
    lines += [
        "",
        f"Without the early JVM start the first result takes {ratio(results, POD_NO_EARLY, POD):.2f}× as long under",
        f"the launcher and {ratio(results, LOCAL_NO_EARLY, LOCAL):.2f}× locally; without the archive"
        f" {ratio(results, POD_NO_CDS, POD):.2f}× under the launcher.",
        "A pod's start returns later than a local one as the provisioner looks for the connection info every 0.5 s.",
    ]
    return "\n".join(lines) + "\n"


async def run(starts: int) -> dict[str, list[tuple[float, float]]]:
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
    for round_number in range(starts):
        for name, (kernel_name, env) in VARIANTS.items():
            results[name].append(await first_result(kernel_name, env))
            print(f"round {round_number + 1}: {name}: {results[name][-1][1]:.2f} s", flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--results", type=Path, default=BENCH_DIR / "RESULTS.md")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kotlin-llm-remote-bench-"))
    write_pod_kernelspec(work / "jupyter", work / "logs")
    # read when gateway_provisioners is imported: the response address on loopback, the kernels' logs in work/
    os.environ |= {
        "GP_RESPONSE_IP": "127.0.0.1",
        "GP_RESPONSE_PORT": str(free_port()),
        "GP_KERNEL_LOG_DIR": str(work),
        "JUPYTER_PATH": os.pathsep.join([str(work / "jupyter"), os.environ.get("JUPYTER_PATH", "")]),
    }
    subprocess.run([sys.executable, "-m", "kotlin_llm_kernel.cds"], check=True)
    load_before = os.getloadavg()[0]
    results = asyncio.run(run(args.starts))
    command = f"python bench/remote_launch.py --starts {args.starts}"
    text = render(results, args.starts, command, (load_before, os.getloadavg()[0]))
    print(text)
    previous = args.results.read_text(encoding="utf-8") if args.results.exists() else ""
    args.results.write_text(replace_section(previous, HEADING, text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
