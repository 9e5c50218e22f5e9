"""Class-data sharing archives: where they live, what each is for, and removing those not used lately.

One archive per hash of the Java runtime, the classpath (paths, sizes, mtimes) and the JVM options, so that a
changed jar, JDK or option simply selects another archive. :mod:`.cds` decides when one is used and makes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .java_runtime import JavaRuntime

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
#: The cache keeps the archives of the KEEP_RECENT configurations used last, and any other used within
#: KEEP_USED_WITHIN seconds; the rest are of jars or JDKs since replaced (~100 MB each), removed when a new one is made.
KEEP_RECENT = 3
KEEP_USED_WITHIN = 24 * 60 * 60


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
            # Map the archive at the address it was dumped for (relocating it only if that is taken): recent JDKs
            # map it at a random address by default, which patches every pointer in it (private copies of its
            # pages: more RSS, slower starts).
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
