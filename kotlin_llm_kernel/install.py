"""``python -m kotlin_llm_kernel install [--user | --sys-prefix | --prefix P] [--no-class-data-sharing] [...]``

Installs the ``kotlin-llm`` kernelspec pointing at this Python (``sys.executable``), with the package's logos, and
beside it ``kotlin-llm-sandboxed``: the same kernel run inside a sandbox by :mod:`.sandbox.kernel_launcher` (its
workspace and network from ``KOTLIN_LLM_SANDBOX_WORKSPACE`` and ``KOTLIN_LLM_SANDBOX_NETWORK``, when set).
Settings given as ``--KotlinKernel.x=…`` are added to every kernel's argv. Then it makes the class-data sharing
archive for those settings (``python -m kotlin_llm_kernel.cds``, ~10 s), so that the first starts map it instead of
training it in the background; ``--no-class-data-sharing`` leaves that to the first start.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

KERNEL_NAME = "kotlin-llm"
#: The sandboxed kernel's name is the kernel's with this suffix.
SANDBOXED_SUFFIX = "-sandboxed"
#: The module that runs the kernel in a sandbox and relays the client to it.
SANDBOX_LAUNCHER = "kotlin_llm_kernel.sandbox.kernel_launcher"
_SPEC_DIR = Path(__file__).resolve().parent.parent / "kernelspec"
#: The command that makes the class-data sharing archive for a kernel's settings, in a process of its own (its JVM
#: must be the first one of its process, and ends it).
ARCHIVE_COMMAND = [sys.executable, "-m", "kotlin_llm_kernel.cds"]


def kernel_spec(settings: list[str] | None = None, python: str | None = None) -> dict[str, Any]:
    """The kernel.json content for this installation."""
    return {
        "argv": [python or sys.executable, "-m", "kotlin_llm_kernel", "-f", "{connection_file}", *(settings or [])],
        "display_name": "Kotlin (LLM)",
        "language": "kotlin",
        "interrupt_mode": "message",
        "env": {"PYDEVD_DISABLE_FILE_VALIDATION": "1"},
        "metadata": {"debugger": False},
    }


def sandboxed_kernel_spec(settings: list[str] | None = None, python: str | None = None) -> dict[str, Any]:
    """The kernel.json of the sandboxed kernel: the launcher in place of the kernel, interrupts as messages (on the
    control channel, relayed like the rest: no signal has to reach into the sandbox)."""
    return kernel_spec(settings, python) | {
        "argv": [python or sys.executable, "-m", SANDBOX_LAUNCHER, "-f", "{connection_file}", *(settings or [])],
        "display_name": "Kotlin (LLM, sandboxed)",
    }


def _logos() -> list[Path]:
    """The logos from the source tree, or from the installed kernelspec of the wheel."""
    candidates = [_SPEC_DIR, Path(sys.prefix) / "share" / "jupyter" / "kernels" / KERNEL_NAME]
    for directory in candidates:
        logos = sorted(directory.glob("logo-*.png"))
        if logos:
            return logos
    return []


def install(
    user: bool = False,
    prefix: str | None = None,
    settings: list[str] | None = None,
    name: str = KERNEL_NAME,
) -> str:
    """Installs the kernelspec ``name`` and its sandboxed twin (``name-sandboxed``); returns the directory the first
    went to."""
    from jupyter_client.kernelspec import KernelSpecManager

    installed = []
    for spec_name, spec in (
        (name, kernel_spec(settings)),
        (name + SANDBOXED_SUFFIX, sandboxed_kernel_spec(settings)),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            spec_dir = Path(tmp) / spec_name
            spec_dir.mkdir()
            (spec_dir / "kernel.json").write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
            for logo in _logos():
                shutil.copy(logo, spec_dir / logo.name)
            installed.append(
                KernelSpecManager().install_kernel_spec(str(spec_dir), spec_name, user=user, prefix=prefix)
            )
    return installed[0]


def make_archive(settings: list[str]) -> bool:
    """Makes the class-data sharing archive a kernel started with ``settings`` maps, saying where (or why not: the
    kernel works without it, its first start makes it in the background)."""
    done = subprocess.run([*ARCHIVE_COMMAND, *settings], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    said = done.stdout.strip().splitlines()
    if done.returncode == 0 and said:
        print(said[-1][0].upper() + said[-1][1:])
        return True
    why = (done.stderr.strip().splitlines() or said or [f"exit status {done.returncode}"])[-1]
    print(
        f"Notice: the class-data sharing archive was not made ({why}); the first kernel start makes it in the "
        "background.",
        file=sys.stderr,
    )
    return False


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kotlin_llm_kernel install", description=__doc__.split("\n\n")[1])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for the current user (the default)")
    where.add_argument("--sys-prefix", action="store_true", help=f"install into this Python's prefix ({sys.prefix})")
    where.add_argument("--prefix", help="install into PREFIX/share/jupyter/kernels")
    parser.add_argument("--name", default=KERNEL_NAME, help=f"kernel name (default {KERNEL_NAME})")
    parser.add_argument(
        "--class-data-sharing",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="make the class-data sharing archive for these settings now (the default; ~10 s); with "
        "--no-class-data-sharing the first kernel start makes it in the background",
    )
    args, settings = parser.parse_known_args(argv)
    unknown = [s for s in settings if not s.startswith("--KotlinKernel.")]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    prefix = sys.prefix if args.sys_prefix else args.prefix
    destination = install(user=prefix is None, prefix=prefix, settings=settings, name=args.name)
    print(f"Installed the {args.name} kernelspec in {destination}, and {args.name}{SANDBOXED_SUFFIX} beside it")
    if args.class_data_sharing:
        make_archive(settings)


if __name__ == "__main__":
    main()
