"""Class-data sharing: an archive of the classes the engine loads, so that later JVMs start much faster.

Loading and verifying the Kotlin compiler's ~11,000 classes is most of a cold start (bench/RESULTS.md). The archive
is a dynamic AppCDS archive (``-XX:ArchiveClassesAtExit``, used with ``-XX:SharedArchiveFile``) before JDK 25, and
an AOT cache from JDK 25 on (``-XX:AOTCacheOutput``, used with ``-XX:AOTCache``). It must be dumped by a
JPype-hosted JVM with exactly the classpath and options of the JVMs that use it (one dumped by the ``java``
launcher does not map under JPype), so a helper process does that: ``python -m kotlin_llm_kernel.cds`` builds it
in the foreground for the default settings, and :func:`options_for` starts the helper detached in the background
when a JVM starts without a usable archive (that start goes on without one). What the helper's JVM runs before it
writes the archive, a session's training (:mod:`kotlin_llm_kernel.session.cds_training`), is given to :func:`dump`
by that command (:mod:`kotlin_llm_kernel.cds`): this layer imports no session.

Archives live in the user's cache directory (``KOTLIN_LLM_CACHE_DIR``, else ``$XDG_CACHE_HOME/kotlin-llm-kernel``,
else ``~/.cache/kotlin-llm-kernel``; see :mod:`.cds_archive`). The JVM checks an archive itself and, with
``-Xshare:auto``, starts without it when it does not match or is damaged. ``KOTLIN_LLM_CDS=0`` (or the setting
``class_data_sharing``) turns all of this off.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .cds_archive import DYNAMIC_MAGIC, ENV_CACHE_DIR, STATIC_MAGIC, Archive, cache_dir, prune
from .java_runtime import JavaRuntime, find_java, inspect_home
from .jvm_options import JvmRequest, jvm_command

__all__ = [
    "DYNAMIC_MAGIC",
    "ENV_CACHE_DIR",
    "ENV_CDS",
    "STATIC_MAGIC",
    "Archive",
    "build",
    "cache_dir",
    "options_for",
    "prune",
]

log = logging.getLogger(__name__)

ENV_CDS = "KOTLIN_LLM_CDS"
#: The helper: the package's command that makes an archive, a process of its own (so named here, not imported).
HELPER_MODULE = "kotlin_llm_kernel.cds"

#: What runs in the started JVM before it is destroyed and writes the archive.
Training = Callable[[], None]

#: Options that already choose what to do with class-data sharing: then ours are not added.
_OWN_CHOICE = ("-Xshare", "-XX:SharedArchiveFile", "-XX:ArchiveClassesAtExit", "-XX:AOTCache", "-XX:AOTMode")


def enabled(setting: bool = True) -> bool:
    """Whether archives are used and made: the setting, unless ``KOTLIN_LLM_CDS`` says 0/false/off/no."""
    return setting and os.environ.get(ENV_CDS, "1").strip().lower() not in ("0", "false", "off", "no")


def _has_own_choice(options: Sequence[str]) -> bool:
    return any(option.startswith(_OWN_CHOICE) for option in options)


def options_for(java: JavaRuntime, classpath: Sequence[str], options: Sequence[str]) -> list[str]:
    """The options that use this configuration's archive, or none; starts making it in the background if missing.

    Never raises and never waits: a start goes on without an archive whatever happens here.
    """
    if _has_own_choice(options):
        return []
    try:
        archive = Archive.for_jvm(java, classpath, options)
        if archive.usable():
            archive.mark_used()
            return archive.use_options()
        if not archive.failed.exists() and not archive.being_made():
            start_helper(archive, java, classpath, options)
    except Exception as error:  # noqa: BLE001 - an archive is an optimisation only
        log.warning("class-data sharing archive not used: %s", error)
    return []


def _write_request(archive: Archive, java: JavaRuntime, classpath: Sequence[str], options: Sequence[str]) -> None:
    """What the helper needs, readable by this user only (``-D`` options may hold secrets); deleted after use."""
    request = {"java_home": str(java.home), "classpath": list(classpath), "options": list(options)}
    fd = os.open(archive.request, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(request, file)


def start_helper(archive: Archive, java: JavaRuntime, classpath: Sequence[str], options: Sequence[str]) -> bool:
    """Starts ``python -m kotlin_llm_kernel.cds --request …`` detached (own session, low priority)."""
    if not archive.take_lock():
        return False
    _write_request(archive, java, classpath, options)
    with open(archive.log_file, "ab") as log_file:
        helper = subprocess.Popen(
            [sys.executable, "-m", HELPER_MODULE, "--request", str(archive.request), "--nice"],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # not in the kernel's process group: an interrupt or kill of it spares this
            close_fds=True,
            env={k: v for k, v in os.environ.items() if k != "JAVA_TOOL_OPTIONS"},
        )
    # reaped when it ends, so it does not stay a zombie of the kernel
    threading.Thread(target=helper.wait, name="kotlin-llm-cds-reaper", daemon=True).start()
    log.info("making the class-data sharing archive %s in the background", archive.path)
    return True


def dump(
    archive: Archive, java: JavaRuntime, classpath: Sequence[str], options: Sequence[str], train: Training
) -> None:
    """In this process: starts the JVM as a kernel would (plus the dump option), trains it (``train``), and exits
    the JVM so that it writes the archive; then moves the archive into place. Needs a process whose JVM is not
    started yet."""
    import jpype
    import jpype.config

    target = archive.temporary()
    target.unlink(missing_ok=True)
    jpype.config.destroy_jvm = True
    jpype.startJVM(
        *options,
        *archive.dump_options(target),
        jvmpath=str(java.libjvm),
        classpath=list(classpath),
        convertStrings=False,
        ignoreUnrecognized=False,
    )
    train()
    jpype.shutdownJVM()  # DestroyJavaVM: the JVM writes the archive now
    if not Archive(target).usable():
        raise RuntimeError(f"the JVM wrote no archive to {target}")
    os.replace(target, archive.path)


def run_request(archive: Archive, request: dict[str, Any], train: Training) -> int:
    """Makes the archive ``request`` (JSON written by :func:`_write_request`) describes."""
    java = inspect_home(Path(str(request["java_home"])))
    classpath = [str(p) for p in request["classpath"]]
    options = [str(o) for o in request["options"]]
    try:
        dump(archive, java, classpath, options, train)
    except BaseException:
        archive.failed.write_text(traceback.format_exc(), encoding="utf-8")
        raise
    finally:
        archive.lock.unlink(missing_ok=True)
        archive.request.unlink(missing_ok=True)
    print(f"wrote {archive.path}", flush=True)
    for path in prune(archive.path.parent):
        print(f"removed {path}: not used lately", flush=True)
    return 0


def build(request: JvmRequest | None, train: Training) -> Archive:
    """Makes the archive for ``request`` (None: the kernel's defaults) in the foreground, unless it exists."""
    request = request or JvmRequest()
    java = find_java(request.java_home)
    classpath, options = jvm_command(request, java)
    archive = Archive.for_jvm(java, classpath, options)
    if archive.usable():
        return archive
    archive.failed.unlink(missing_ok=True)
    if not archive.take_lock():
        raise RuntimeError(f"another process is making {archive.path} (lock {archive.lock})")
    _write_request(archive, java, classpath, options)
    run_request(archive, json.loads(archive.request.read_text(encoding="utf-8")), train)
    return archive
