"""Class-data sharing: an archive of the classes the engine loads, so that later JVMs start much faster.

Loading and verifying the Kotlin compiler's ~11,000 classes is most of a cold start (research k2-repl §7: the
first result came ~2× sooner with an AppCDS archive). The archive is a dynamic AppCDS archive
(``-XX:ArchiveClassesAtExit``, used with ``-XX:SharedArchiveFile``) before JDK 25, and an AOT cache from JDK 25 on
(``-XX:AOTCacheOutput``, used with ``-XX:AOTCache``). It must be dumped by a JPype-hosted
JVM with exactly the classpath and options of the JVMs that use it (one dumped by the ``java`` launcher does not
map under JPype), so a helper process does that: ``python -m kotlin_llm_kernel.cds`` builds it in the
foreground for the default settings, and :func:`options_for` starts the helper detached in the background when a
JVM starts without a usable archive (that start goes on without one).

Archives live in the user's cache directory (``KOTLIN_LLM_CACHE_DIR``, else ``$XDG_CACHE_HOME/kotlin-llm-kernel``,
else ``~/.cache/kotlin-llm-kernel``), one per hash of the Java runtime, the classpath (paths, sizes, mtimes) and
the JVM options, so that a changed jar, JDK or option simply selects another archive. The JVM checks an archive
itself and, with ``-Xshare:auto``, starts without it when it does not match or is damaged.
``KOTLIN_LLM_CDS=0`` (or the setting ``class_data_sharing``) turns all of this off.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .java import JavaRuntime

if TYPE_CHECKING:
    from .jvm import JvmSettings

log = logging.getLogger(__name__)

ENV_CDS = "KOTLIN_LLM_CDS"
ENV_CACHE_DIR = "KOTLIN_LLM_CACHE_DIR"

#: The first bytes of a HotSpot dynamic archive (CDS_DYNAMIC_ARCHIVE_MAGIC 0xf00baba8, little-endian) and of a
#: static one, which is what an AOT cache is (CDS_ARCHIVE_MAGIC 0xf00baba2).
DYNAMIC_MAGIC = bytes.fromhex("a8ab0bf0")
STATIC_MAGIC = bytes.fromhex("a2ab0bf0")
#: From this JDK on, an AOT cache (JEP 483/514: `-XX:AOTCacheOutput` once, `-XX:AOTCache` after) replaces the dynamic
#: archive: it also keeps the classes linked, and the JVM assembles it at exit in a child `java` process.
AOT_CACHE_JAVA = 25
#: A lock older than this is from a helper that died: another may start.
STALE_LOCK_SECONDS = 30 * 60
#: The helper gives up (and leaves no archive) after this long.
DUMP_TIMEOUT_SECONDS = 20 * 60
#: The cache keeps the archives of the KEEP_RECENT configurations used last, and any other used within
#: KEEP_USED_WITHIN seconds; the rest are of jars or JDKs since replaced (~100 MB each), removed when a new one is made.
KEEP_RECENT = 3
KEEP_USED_WITHIN = 24 * 60 * 60
#: What the helper runs: the kinds of snippets a first session compiles (expressions, declarations, output,
#: failures), so that the classes they need are in the archive.
TRAINING_SNIPPETS = (
    "1 + 1",
    "fun trainingFun(x: Int): Int = x * 2 + 1\ntrainingFun(3)",
    "class TrainingClass(val x: Int) { fun twice() = x * 2 }\nTrainingClass(2).twice()",
    "data class TrainingData(val name: String, val values: List<Int>)\n"
    'TrainingData("a", listOf(1, 2, 3)).values.map { it * 2 }.filter { it > 2 }.sum()',
    'val trainingMap = mapOf("a" to 1, "b" to 2)\nprintln(trainingMap)\nSystem.err.println("err")',
    '"text ${1 + 2}".uppercase()',
    "asdf\nprintln(foo)",
    'error("training")',
)

#: Options that already choose what to do with class-data sharing: then ours are not added.
_OWN_CHOICE = ("-Xshare", "-XX:SharedArchiveFile", "-XX:ArchiveClassesAtExit", "-XX:AOTCache", "-XX:AOTMode")


def enabled(setting: bool = True) -> bool:
    """Whether archives are used and made: the setting, unless ``KOTLIN_LLM_CDS`` says 0/false/off/no."""
    return setting and os.environ.get(ENV_CDS, "1").strip().lower() not in ("0", "false", "off", "no")


def cache_dir() -> Path:
    if explicit := os.environ.get(ENV_CACHE_DIR):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kotlin-llm-kernel"


def _stat(path: str) -> list[object]:
    try:
        info = os.stat(path)
    except OSError:
        return [path, None]
    return [path, info.st_size, info.st_mtime_ns]


#: Options that do not change what is archived nor whether an archive maps (heap and stack sizing; not -Xmx,
#: which can change the compressed-pointer mode): left out of the key, so tuning them keeps the archive.
_NEUTRAL_OPTIONS = ("-Xms", "-Xmn", "-Xss", "-XX:MinHeapFreeRatio=", "-XX:MaxHeapFreeRatio=", "-XX:NewSize=")


def archive_key(java: JavaRuntime, classpath: Sequence[str], options: Sequence[str]) -> str:
    """A hash of everything an archive depends on: the JVM (its release file and library), classpath, options."""
    release = java.home / "release"
    identity = {
        "java": [str(java.home), java.version, _stat(str(java.libjvm)), _stat(str(release))],
        "classpath": [_stat(entry) for entry in classpath],
        "options": [option for option in options if not option.startswith(_NEUTRAL_OPTIONS)],
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class Archive:
    """The archive for one JVM configuration, and the files that coordinate its creation."""

    path: Path

    @classmethod
    def for_jvm(cls, java: JavaRuntime, classpath: Sequence[str], options: Sequence[str]) -> Archive:
        suffix = ".aot" if java.version >= AOT_CACHE_JAVA else ".jsa"
        return cls(cache_dir() / f"engine-java{java.version}-{archive_key(java, classpath, options)}{suffix}")

    @property
    def aot(self) -> bool:
        return self.path.suffix == ".aot"

    def temporary(self) -> Path:
        """Where a helper writes it before moving it into place."""
        return self.path.with_name(f"{self.path.stem}.{os.getpid()}.tmp{self.path.suffix}")

    @property
    def lock(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @property
    def failed(self) -> Path:
        return self.path.with_name(self.path.name + ".failed")

    @property
    def request(self) -> Path:
        return self.path.with_name(self.path.name + ".request.json")

    @property
    def log_file(self) -> Path:
        return self.path.with_name(self.path.name + ".log")

    def usable(self) -> bool:
        """Present and a dynamic archive (the JVM validates the rest, and ignores one that does not match)."""
        try:
            with open(self.path, "rb") as file:
                return file.read(4) == (STATIC_MAGIC if self.aot else DYNAMIC_MAGIC)
        except OSError:
            return False

    def use_options(self) -> list[str]:
        # AOTMode=auto and -Xshare:auto are the defaults, stated so that nothing turns them into "on": a damaged or
        # mismatched archive is skipped and the JVM starts without it, never fails.
        # JDK 25 warns on stdout about every adapter of its AOT code cache it re-creates: only its errors are shown.
        chosen = [f"-XX:AOTCache={self.path}", "-XX:AOTMode=auto", "-Xlog:aot*=error"] if self.aot else []
        return [
            *(chosen or [f"-XX:SharedArchiveFile={self.path}", "-Xshare:auto"]),
            # Map the archive at the address it was dumped for (relocating it only if that is taken). Recent JDKs
            # (17.0.15 included) map it at a random address by default, which patches every pointer in it: ~90 MB
            # of private copies (RSS) and slower starts, measured.
            "-XX:+UnlockDiagnosticVMOptions",
            "-XX:ArchiveRelocationMode=0",
        ]

    def mark_used(self) -> None:
        """Its modification time says when it was last used, for :func:`prune`."""
        try:
            os.utime(self.path)
        except OSError:  # a read-only cache still serves
            pass

    def dump_options(self, target: Path) -> list[str]:
        return [f"-XX:AOTCacheOutput={target}"] if self.aot else [f"-XX:ArchiveClassesAtExit={target}"]

    def being_made(self) -> bool:
        try:
            return time.time() - self.lock.stat().st_mtime < STALE_LOCK_SECONDS
        except OSError:
            return False

    def take_lock(self) -> bool:
        """Creates the lock file; False when another helper holds a fresh one."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.lock.exists() and not self.being_made():
            self.lock.unlink(missing_ok=True)
        try:
            fd = os.open(self.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as file:
            file.write(str(os.getpid()))
        return True


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
            [sys.executable, "-m", "kotlin_llm_kernel.cds", "--request", str(archive.request), "--nice"],
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


def dump(archive: Archive, java: JavaRuntime, classpath: Sequence[str], options: Sequence[str]) -> None:
    """In this process: starts the JVM as a kernel would (plus the dump option), trains it, and exits the JVM so
    that it writes the archive; then moves the archive into place. Needs a process whose JVM is not started yet."""
    import jpype
    import jpype.config

    from .engine import EngineSession

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
    session = EngineSession({"trainingProperty": "value"})
    for code in TRAINING_SNIPPETS:
        session.submit(code).outcome()
        session.drain(0)
    session.close()
    jpype.shutdownJVM()  # DestroyJavaVM: the JVM writes the archive now
    if not Archive(target).usable():
        raise RuntimeError(f"the JVM wrote no archive to {target}")
    os.replace(target, archive.path)


def prune(directory: Path, now: float | None = None) -> list[Path]:
    """Removes the archives (and their logs) not among the KEEP_RECENT used last nor used within KEEP_USED_WITHIN.

    A JVM that has an archive mapped keeps using it when its file is removed; a later start with that configuration
    makes it again.
    """
    now = time.time() if now is None else now
    archives: list[tuple[float, Path]] = []
    for path in directory.glob("engine-java*"):
        if path.suffix in (".jsa", ".aot") and ".tmp" not in path.name:
            try:
                archives.append((path.stat().st_mtime, path))
            except OSError:
                continue
    archives.sort(reverse=True)
    removed: list[Path] = []
    for used, path in archives[KEEP_RECENT:]:
        if now - used < KEEP_USED_WITHIN:
            continue
        for stale in (path, Archive(path).log_file):
            try:
                stale.unlink()
            except OSError:
                continue
            removed.append(stale)
    return removed


def _run_request(archive: Archive, request: dict[str, object]) -> int:
    from .java import inspect_home

    java = inspect_home(Path(str(request["java_home"])))
    classpath = [str(p) for p in request["classpath"]]  # type: ignore[attr-defined]
    options = [str(o) for o in request["options"]]  # type: ignore[attr-defined]
    try:
        dump(archive, java, classpath, options)
    except BaseException:  # noqa: BLE001 - recorded, so that later starts do not try again with the same inputs
        archive.failed.write_text(traceback.format_exc(), encoding="utf-8")
        raise
    finally:
        archive.lock.unlink(missing_ok=True)
        archive.request.unlink(missing_ok=True)
    print(f"wrote {archive.path}", flush=True)
    for path in prune(archive.path.parent):
        print(f"removed {path}: not used lately", flush=True)
    return 0


def build(settings: JvmSettings | None = None) -> Archive:
    """Makes the archive for ``settings`` (default: the kernel's defaults) in the foreground, unless it exists."""
    from .java import find_java
    from .jvm import JvmSettings, jvm_command

    settings = settings or JvmSettings()
    java = find_java(settings.java_home)
    classpath, options = jvm_command(settings, java)
    archive = Archive.for_jvm(java, classpath, options)
    if archive.usable():
        return archive
    archive.failed.unlink(missing_ok=True)
    if not archive.take_lock():
        raise RuntimeError(f"another process is making {archive.path} (lock {archive.lock})")
    _write_request(archive, java, classpath, options)
    _run_request(archive, json.loads(archive.request.read_text(encoding="utf-8")))
    return archive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kotlin_llm_kernel.cds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--request", type=Path, help="make the archive described by this file (the kernel's helper)")
    parser.add_argument("--nice", action="store_true", help="run at the lowest CPU priority")
    args = parser.parse_args(argv)
    if args.nice and hasattr(os, "nice"):
        os.nice(19)  # a kernel starting meanwhile keeps the CPU
    watchdog = threading.Timer(DUMP_TIMEOUT_SECONDS, os._exit, args=(2,))
    watchdog.daemon = True
    watchdog.start()
    if args.request is None:
        print(f"class-data sharing archive: {build().path}")
        return 0
    name = args.request.name.removesuffix(".request.json")
    request = json.loads(args.request.read_text(encoding="utf-8"))
    return _run_request(Archive(args.request.with_name(name)), request)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # the JVM is gone: nothing may call into it during Python's finalization
