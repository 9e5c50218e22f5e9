"""Class-data sharing: an archive of the classes the engine loads, so that later JVMs start much faster.

``python -m kotlin_llm_kernel.cds [--KotlinKernel.x=…]`` makes the archive for the kernel's settings (these arguments,
its config files and environment, as a kernel started with them reads them) in the foreground, nothing when it exists;
``python -m kotlin_llm_kernel install`` runs it. With ``--request FILE`` it is the helper a JVM start runs in the
background when it finds no archive (:func:`.jvm.cds.options_for`). How archives are made, named and used is the
JVM layer's (:mod:`.jvm.cds`); what the dumping JVM runs, a session's training, is the session layer's
(:mod:`.session.cds_training`): this command joins the two.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

from .jvm import cds
from .jvm.cds_archive import Archive
from .jvm.jvm_options import JvmRequest
from .session.cds_training import train

#: The helper gives up (and leaves no archive) after this long.
DUMP_TIMEOUT_SECONDS = 20 * 60


def build(request: JvmRequest | None = None) -> Archive:
    """Makes the archive for ``request`` (default: the kernel's defaults) in the foreground, unless it exists."""
    return cds.build(request, train)


def build_for_settings(settings: list[str]) -> str:
    """Makes the archive a kernel started with ``settings`` (``--KotlinKernel.x=…``) maps, unless it exists or
    class-data sharing is off for it; says which, and where."""
    from .config.kernel_config import load

    request = load(settings).request.jvm
    if not cds.enabled(request.class_data_sharing):
        return f"class-data sharing is off ({cds.ENV_CDS} or the setting class_data_sharing): no archive made"
    began, wall = time.monotonic(), time.time()
    archive = build(request)
    made = archive.path.stat().st_mtime >= wall - 1  # written now, not found
    return f"class-data sharing archive: {archive.path}" + (
        f" (made in {time.monotonic() - began:.1f} s)" if made else " (already there)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kotlin_llm_kernel.cds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--request", type=Path, help="make the archive described by this file (the kernel's helper)")
    parser.add_argument("--nice", action="store_true", help="run at the lowest CPU priority")
    args, settings = parser.parse_known_args(argv)
    unknown = [s for s in settings if not s.startswith("--KotlinKernel.")]
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.nice and hasattr(os, "nice"):
        os.nice(19)  # a kernel starting meanwhile keeps the CPU
    watchdog = threading.Timer(DUMP_TIMEOUT_SECONDS, os._exit, args=(2,))
    watchdog.daemon = True
    watchdog.start()
    if args.request is None:
        print(build_for_settings(settings))
        return 0
    name = args.request.name.removesuffix(".request.json")
    request = json.loads(args.request.read_text(encoding="utf-8"))
    return cds.run_request(Archive(args.request.with_name(name)), request, train)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # the JVM is gone: nothing may call into it during Python's finalization
