"""What a kernel start asks for, and the signature a spare must share with it to be handed to it.

The kernel fixes at its start its argv, its environment (the JVM's ``System.getenv()`` is a snapshot), its working
directory (the JVM's ``user.dir`` cannot be moved), the ``kotlin_llm_kernel_config`` files and the engine's jars: a
spare started with any other of these is never handed out.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from .. import __version__
from ..config.kernel_config import CONFIG_FILE
from ..jvm.jvm_options import JARS_DIR
from ..session.early import ENV_SPARE

#: Variables that differ between the starts of one client, or that a client sets for one kernel, and that the engine
#: does not read: left out of the signature; a claimed spare takes the claimer's (but for ``JPY_PARENT_PID``, whose
#: watch is the claimer's).
IGNORED_ENV = frozenset({"JPY_PARENT_PID", "JPY_SESSION_NAME", "JPY_INTERRUPT_EVENT", "PWD", "OLDPWD", "_", "SHLVL"})
#: In a spare's environment: its id in the pool, and the seconds it waits before it starts its JVM.
ENV_SPARE_ID = "KOTLIN_LLM_SPARE_ID"
ENV_SPARE_DELAY = "KOTLIN_LLM_SPARE_DELAY"
#: What stands for the connection file in a spare's argv (as in a kernelspec): a claimer gives it the real one.
CONNECTION_FILE = "{connection_file}"


@dataclass(frozen=True)
class SpareRequest:
    """A kernel start: the kernelspec's argv with the request's extra arguments (``{connection_file}`` unformatted),
    its environment and working directory."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: str

    @classmethod
    def of(cls, argv: Sequence[str], env: Mapping[str, str], cwd: str | os.PathLike[str] | None) -> SpareRequest:
        return cls(tuple(argv), dict(env), os.path.realpath(cwd if cwd is not None else os.getcwd()))

    def kernel_env(self, spare_id: str, delay: float) -> dict[str, str]:
        """The environment a spare for this request starts with."""
        env = {k: v for k, v in self.env.items() if k not in IGNORED_ENV}
        return env | {ENV_SPARE: "1", ENV_SPARE_ID: spare_id, ENV_SPARE_DELAY: f"{delay:g}"}

    @cached_property
    def signature(self) -> str:
        """The request's identity for matching spares: argv, working directory, environment (less
        :data:`IGNORED_ENV`), the package's version, the engine's jars and the kernel's config files (read once per
        request: a start claims and then prepares the next spare with it)."""
        parts: dict[str, Any] = {
            "argv": list(self.argv),
            "cwd": self.cwd,
            "env": sorted(
                (k, v) for k, v in self.env.items() if k not in IGNORED_ENV | {ENV_SPARE, ENV_SPARE_ID, ENV_SPARE_DELAY}
            ),
            "version": __version__,
            "jars": _files(sorted(JARS_DIR.rglob("*.jar"))),
            "config": _contents(_config_files()),
        }
        return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:32]

    def to_json(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "env": dict(self.env), "cwd": self.cwd}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SpareRequest:
        return cls(tuple(data["argv"]), dict(data["env"]), data["cwd"])


def kernel_argv(arguments: Sequence[str]) -> tuple[list[str], str | None]:
    """This kernel's command (``python -m kotlin_llm_kernel`` with ``arguments``) as its kernelspec reads, with
    :data:`CONNECTION_FILE` for the connection file, and that file (None when none is given)."""
    argv = [sys.executable, "-m", "kotlin_llm_kernel"]
    connection_file = None
    taking = False
    for arg in arguments:
        if taking:
            argv.append(CONNECTION_FILE)
            connection_file, taking = arg, False
        elif arg in ("-f", "--f"):
            argv.append(arg)
            taking = True
        elif arg.startswith(("-f=", "--f=")):
            name, connection_file = arg.split("=", 1)
            argv.append(f"{name}={CONNECTION_FILE}")
        else:
            argv.append(arg)
    return argv, connection_file


def with_connection_file(arguments: Sequence[str], connection_file: str) -> list[str]:
    """``arguments`` with :data:`CONNECTION_FILE` replaced by ``connection_file``."""
    return [arg.replace(CONNECTION_FILE, connection_file) for arg in arguments]


def _files(paths: Sequence[Path]) -> list[tuple[str, int, int]]:
    found = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError:
            continue
        found.append((str(path), stat.st_size, stat.st_mtime_ns))
    return found


def _contents(paths: Sequence[Path]) -> list[tuple[str, str]]:
    found = []
    for path in paths:
        try:
            found.append((str(path), hashlib.sha256(path.read_bytes()).hexdigest()))
        except OSError:
            continue
    return found


def _config_files() -> list[Path]:
    from jupyter_core.paths import jupyter_config_path

    return [path for directory in jupyter_config_path() for path in sorted(Path(directory).glob(f"{CONFIG_FILE}.*"))]
