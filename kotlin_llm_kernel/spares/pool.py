"""The per-user pool directory of spares, its records and the atomic claim.

Layout (a 0700 directory, 0600 files): ``starting/<id>.json`` while a spawner starts and warms a spare,
``ready/<id>.json`` once it answers, ``claimed/<id>.json`` once a provisioner took it (by renaming it from
``ready/``: of two claimers one wins); ``kernels/<id>.json`` is the spare's connection file, ``logs/<id>.log`` what it
printed, ``requests/<id>.json`` what its spawner was asked to start. A spawner removes its files when its kernel ends.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import processes

STATES = ("starting", "ready", "claimed")
ENV_POOL_DIR = "KOTLIN_LLM_SPARES_DIR"


def default_directory() -> Path:
    """``$KOTLIN_LLM_SPARES_DIR``, else ``kotlin-llm-spares`` in the Jupyter runtime directory (per user)."""
    if os.environ.get(ENV_POOL_DIR):
        return Path(os.environ[ENV_POOL_DIR])
    from jupyter_core.paths import jupyter_runtime_dir

    return Path(jupyter_runtime_dir()) / "kotlin-llm-spares"


@dataclass(frozen=True)
class Record:
    """A spare as its pool file says: ``data`` holds ``id``, ``signature``, the spawner's ``spawner_pid`` and
    ``spawner_start``, and once ready the kernel's ``pid``, ``start``, ``connection`` and ``ready_at``; once claimed
    ``owner_pid`` and ``owner_start``."""

    state: str
    path: Path
    data: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def pid(self) -> int | None:
        pid = self.data.get("pid")
        return int(pid) if pid is not None else None

    def kernel_running(self) -> bool:
        return self.pid is not None and processes.running(self.pid, self.data.get("start"))

    def spawner_running(self) -> bool:
        return processes.running(int(self.data["spawner_pid"]), self.data.get("spawner_start"))


class Pool:
    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory else default_directory()

    def prepare(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.directory, 0o700)
        for sub in (*STATES, "kernels", "logs", "requests"):
            (self.directory / sub).mkdir(exist_ok=True, mode=0o700)

    def path(self, state: str, spare_id: str) -> Path:
        return self.directory / state / f"{spare_id}.json"

    def connection_file(self, spare_id: str) -> Path:
        return self.directory / "kernels" / f"{spare_id}.json"

    def log_file(self, spare_id: str) -> Path:
        return self.directory / "logs" / f"{spare_id}.log"

    def request_file(self, spare_id: str) -> Path:
        return self.directory / "requests" / f"{spare_id}.json"

    @staticmethod
    def new_id() -> str:
        return uuid.uuid4().hex[:12]

    def write(self, state: str, data: dict[str, Any]) -> Path:
        """Writes ``data`` as the record of its spare in ``state``, atomically (a reader never sees half of it)."""
        return write_json(self.path(state, str(data["id"])), data)

    def records(self, *states: str) -> list[Record]:
        found = []
        for state in states or STATES:
            for path in sorted((self.directory / state).glob("*.json")):
                try:
                    found.append(Record(state, path, json.loads(path.read_text(encoding="utf-8"))))
                except (OSError, ValueError):
                    continue  # moved or removed meanwhile, or being written
        return found

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Holds the pool's lock: deciding whether to start a spare and recording it is one step."""
        self.prepare()
        with open(self.directory / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def claim(self, signature: str, owner_pid: int) -> Record | None:
        """Takes a ready spare of ``signature`` (renamed into ``claimed/``, so no one else takes it) and records its
        owner; a ready spare whose kernel is gone is dropped on the way. None when there is none."""
        if not (self.directory / "ready").is_dir():
            return None
        for record in self.records("ready"):
            if record.data.get("signature") != signature:
                continue
            if not record.kernel_running():
                record.path.unlink(missing_ok=True)  # its spawner replaces it, or is gone too
                continue
            target = self.path("claimed", record.id)
            try:
                os.rename(record.path, target)
            except FileNotFoundError:
                continue  # another claimer won it, or its spawner retired it
            data = record.data | {"owner_pid": owner_pid, "owner_start": processes.start_time(owner_pid)}
            write_json(target, data)
            if not processes.running(record.pid or 0, record.data.get("start")):
                target.unlink(missing_ok=True)  # it died as we took it
                continue
            return Record("claimed", target, data)
        return None


def write_json(path: Path, data: dict[str, Any]) -> Path:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{time.monotonic_ns()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(data, out)
    os.replace(temporary, path)
    return path
