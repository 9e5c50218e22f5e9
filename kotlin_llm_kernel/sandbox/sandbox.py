"""One sandbox's life: checks the host (:mod:`.host`), makes its run directory (the files bound inside) and its
workspace, runs the egress proxy for ``--network maven`` (:mod:`.egress`), and gives the argv of a command inside
(:func:`.bwrap.sandboxed_command`). A kernel launcher, the MCP server and the Python API start their sandboxes here."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from . import host, seccomp
from .bwrap import (
    GROUP,
    HOSTS,
    NET_PROPERTIES,
    PASSWD,
    SECCOMP,
    SETTINGS,
    SOCKET,
    Place,
    group_text,
    hosts_text,
    passwd_text,
    sandboxed_command,
)
from .egress import EgressProxy, Rules, inside_url, maven_settings, net_properties
from .layout import Bind, SandboxOptions


class Sandbox:
    """A sandbox ready to run commands: ``with Sandbox(options) as sandbox: argv = sandbox.command([...])``.

    Raises :class:`.host.SandboxUnavailable` when the host cannot provide it. The run directory (and a workspace it
    made) is removed, and the proxy stopped, at the end."""

    def __init__(self, options: SandboxOptions) -> None:
        self.options = options
        host.find_bwrap()
        self.user = host.sandbox_user(options.user)
        self._bwrap = host.checked_bwrap(self.user.drop)
        python, python_binds = host.python_inside(self.user)
        path, path_binds = host.python_path(self.user)
        java_env, java_binds, net = host.java_inside(self.user)
        cache_env, cache_binds = host.cache_inside(self.user)
        self.rules = Rules.for_repositories(options.repositories, options.allowed_hosts)
        self.run_dir = Path(tempfile.mkdtemp(prefix="kotlin-llm-sandbox-"))
        self._own_workspace = options.workspace is None
        self.proxy: EgressProxy | None = None
        try:
            self.workspace = self._workspace(options.workspace)
            self._write_files(net)
            if options.network == "maven":
                self.proxy = EgressProxy(self.run_dir / SOCKET, self.rules)
                self.proxy.start()
                if self.user.drop:
                    os.chmod(self.run_dir / SOCKET, 0o666)
        except BaseException:
            self.close()
            raise
        self.place = Place(
            run_dir=self.run_dir,
            workspace=self.workspace,
            python=python,
            python_path=path,
            read_only=(*python_binds, *path_binds, *java_binds, *cache_binds),
            java_net_properties=net if options.network == "maven" else None,
            env={**java_env, **cache_env},
            drop=self.user.drop,
            bwrap=self._bwrap,
            seccomp=(self.run_dir / SECCOMP).exists(),
        )

    def _workspace(self, given: Path | None) -> Path:
        if given is None:
            made = Path(tempfile.mkdtemp(prefix="kotlin-llm-workspace-"))
            self._chown(made)
            return made
        workspace = Path(os.path.abspath(given))
        if not workspace.exists():
            workspace.mkdir(parents=True)
            self._chown(workspace)
        if not workspace.is_dir():
            raise host.SandboxUnavailable(f"The workspace {workspace} is not a directory.")
        if self.user.drop and not _writable(workspace, self.user):
            raise host.SandboxUnavailable(
                f"The sandbox user {self.user.name!r} cannot write the workspace {workspace}: give it that user "
                f"(`chown {self.user.name} {workspace}`) or choose another one."
            )
        return workspace

    def _chown(self, path: Path) -> None:
        if self.user.drop:
            os.chown(path, self.user.uid, self.user.gid)

    def _write_files(self, net: str | None) -> None:
        files = {
            PASSWD: passwd_text(self.user.uid, self.user.gid),
            GROUP: group_text(self.user.gid),
            HOSTS: hosts_text(),
            SETTINGS: maven_settings(),
        }
        if net is not None:
            files[NET_PROPERTIES] = net_properties(Path(net).read_text(encoding="utf-8"))
        for name, text in files.items():
            (self.run_dir / name).write_text(text, encoding="utf-8")
            os.chmod(self.run_dir / name, 0o644)
        if (program := seccomp.program()) is not None:
            (self.run_dir / SECCOMP).write_bytes(program)
            os.chmod(self.run_dir / SECCOMP, 0o644)
        os.chmod(self.run_dir, 0o755 if not self.user.drop else 0o750)
        if self.user.drop:
            os.chown(self.run_dir, 0, self.user.gid)

    def command(
        self,
        argv: Sequence[str],
        *,
        binds: Sequence[Bind] = (),
        env: Mapping[str, str] | None = None,
        info_fd: int | None = None,
    ) -> list[str]:
        """The argv running ``argv`` inside (see :func:`.bwrap.sandboxed_command`)."""
        return sandboxed_command(argv, self.options, self.place, binds=binds, env=env, info_fd=info_fd)

    def directory(self, name: str) -> Path:
        """A new directory of the run directory that the sandbox's user owns (mode 700), to bind writable inside
        (a kernel launcher's socket directory); removed with the sandbox."""
        path = self.run_dir / name
        path.mkdir(mode=0o700)
        self._chown(path)
        return path

    def url(self, url: str) -> str:
        """A repository's URL as the code inside reaches it: through the proxy (``maven``), one on the host's loopback
        is named as the proxy knows it; otherwise unchanged."""
        return inside_url(url) if self.options.network == "maven" else url

    def python(self, *arguments: str) -> list[str]:
        """The argv of the interpreter inside with ``arguments`` (``"-m", "kotlin_llm_kernel.mcp"``), to wrap."""
        return [self.place.python if hasattr(self, "place") else "python3", *arguments]

    def close(self) -> None:
        if self.proxy is not None:
            self.proxy.close()
            self.proxy = None
        shutil.rmtree(self.run_dir, ignore_errors=True)
        if self._own_workspace and hasattr(self, "workspace"):
            shutil.rmtree(self.workspace, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def _writable(path: Path, user: host.HostUser) -> bool:
    info = os.stat(path)
    if info.st_uid == user.uid:
        return bool(info.st_mode & 0o300 == 0o300)
    if info.st_gid == user.gid:
        return bool(info.st_mode & 0o030 == 0o030)
    return bool(info.st_mode & 0o003 == 0o003) and host.can_read(path, user)
