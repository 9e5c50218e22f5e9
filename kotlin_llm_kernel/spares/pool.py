"""The per-user pool directory of spares, its records and the atomic claim.

Layout (a 0700 directory, 0600 files): ``starting/<id>.json`` while a spare starts and warms up, ``ready/<id>.json``
once it waits on its socket ``sockets/<id>.sock``, ``claimed/<id>.json`` once a kernel start took it (by renaming it
from ``ready/``: of two claimers one wins); ``logs/<id>.log`` is what it printed before it was claimed (kept only
when it failed). A spare retires by the same rename, so that it never ends under a claimer.
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

from ..config.spares import default_pool
from . import processes

STATES = ("starting", "ready", "claimed")


def default_directory() -> Path:
    """``$KOTLIN_LLM_SPARES_DIR``, else ``kotlin-llm-spares`` in the Jupyter runtime directory (per user)."""
    if default_pool():
        return Path(default_pool())
    from jupyter_core.paths import jupyter_runtime_dir

    return Path(jupyter_runtime_dir()) / "kotlin-llm-spares"


@dataclass(frozen=True)
class Record:
    """A spare as its pool file says: ``data`` holds ``id``, ``signature``, ``cwd``, the spare's ``pid`` and
    ``start`` (its start time), ``created``, and once ready ``socket`` and ``ready_at``; once claimed ``owner_pid`` and
    ``owner_start`` (the kernel start that took it)."""

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


class Pool:
    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory else default_directory()

    def prepare(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.directory, 0o700)
        for sub in (*STATES, "sockets", "logs"):
            (self.directory / sub).mkdir(exist_ok=True, mode=0o700)

    def path(self, state: str, spare_id: str) -> Path:
        return self.directory / state / f"{spare_id}.json"

    def socket_path(self, spare_id: str) -> Path:
        return self.directory / "sockets" / f"{spare_id}.sock"

    def log_file(self, spare_id: str) -> Path:
        return self.directory / "logs" / f"{spare_id}.log"

    def retire(self, spare_id: str) -> bool:
        """Takes a ready spare out of the pool as a claimer would (a claimer never gets it after this); False when a
        claimer was first."""
        ready = self.path("ready", spare_id)
        try:
            os.rename(ready, ready.with_name(f".{spare_id}.retired"))
        except FileNotFoundError:
            return False
        ready.with_name(f".{spare_id}.retired").unlink(missing_ok=True)
        return True

    def remove(self, spare_id: str, keep_log: bool = False) -> None:
        """Removes what the pool holds of a spare that ended."""
        for state in STATES:
            self.path(state, spare_id).unlink(missing_ok=True)
        self.socket_path(spare_id).unlink(missing_ok=True)
        if not keep_log:
            self.log_file(spare_id).unlink(missing_ok=True)

    def live(self, *states: str) -> list[Record]:
        """The records of ``states`` whose spare still runs; the others are removed on the way (a spare killed from
        outside, or a kernel ended without its launcher's clean-up)."""
        found = []
        for record in self.records(*states):
            if record.kernel_running():
                found.append(record)
            else:
                self.remove(record.id, keep_log=record.state != "claimed")
        return found

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
        for record in self.live("ready"):  # one killed from outside is dropped, its log kept to tell why
            if record.data.get("signature") != signature:
                continue
            target = self.path("claimed", record.id)
            try:
                os.rename(record.path, target)
            except FileNotFoundError:
                continue  # another claimer won it, or it retired
            data = record.data | {"owner_pid": owner_pid, "owner_start": processes.start_time(owner_pid)}
            write_json(target, data)
            if not record.kernel_running():
                self.remove(record.id, keep_log=True)  # it died as we took it
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
