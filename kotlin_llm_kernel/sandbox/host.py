"""What the machine must provide for a sandbox, checked before one starts: bwrap, the dedicated user when the caller
is root (bwrap run by root is no sandbox), user namespaces for that user, and a Python, the package, its libraries
and a Java runtime that user can read. Each missing piece is a :class:`SandboxUnavailable` naming it: a session
never starts unsandboxed instead."""

from __future__ import annotations

import functools
import os
import pwd
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from ..jvm.cds import ENV_CDS
from ..jvm.cds_archive import ENV_CACHE_DIR, cache_dir
from ..jvm.java_runtime import JavaNotFoundError, find_java
from .layout import Bind

#: How setup creates the dedicated user (scripts/setup.sh does).
CREATE_USER = "useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin {user}"
PACKAGE = Path(__file__).resolve().parent.parent


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot start here; the message names what is missing and how to provide it."""


@dataclass(frozen=True)
class HostUser:
    """The host user the sandbox runs as, and the command that becomes it (empty: the caller itself)."""

    name: str
    uid: int
    gid: int
    drop: tuple[str, ...] = ()


def sandbox_user(name: str) -> HostUser:
    """The caller when it is not root; else the dedicated user ``name``, which must exist."""
    if os.geteuid() != 0:
        return HostUser(pwd.getpwuid(os.getuid()).pw_name, os.getuid(), os.getgid())
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        raise SandboxUnavailable(
            f"The sandbox runs as the dedicated user {name!r} when started by root (bwrap run by root is no "
            f"sandbox), and that user does not exist: create it with `{CREATE_USER.format(user=name)}` (scripts/"
            "setup.sh does)."
        ) from None
    if entry.pw_uid == 0:
        raise SandboxUnavailable(f"The sandbox user {name!r} is root (uid 0): it must be an unprivileged user.")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise SandboxUnavailable("setpriv (util-linux) is missing: root needs it to start the sandbox as its user.")
    drop = (setpriv, f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups", "--")
    return HostUser(name, entry.pw_uid, entry.pw_gid, drop)


def find_bwrap() -> str:
    """bwrap's path."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(
            "bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: `apt-get install bubblewrap`; "
            "scripts/setup.sh does)."
        )
    return bwrap


@functools.cache
def checked_bwrap(drop: tuple[str, ...]) -> str:
    """bwrap's path, once it created a sandbox as the user ``drop`` becomes (user namespaces allowed)."""
    bwrap = find_bwrap()
    probe = [*drop, bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--ro-bind", "/", "/"]
    probe += ["--proc", "/proc", "--dev", "/dev", "--", "true"]
    ran = subprocess.run(probe, capture_output=True, text=True, timeout=60, check=False)
    if ran.returncode != 0:
        said = ran.stderr.strip() or f"exit status {ran.returncode}"
        raise SandboxUnavailable(
            f"bwrap cannot create a sandbox here (user namespaces for unprivileged users may be disabled, e.g. by "
            f"the sysctl kernel.unprivileged_userns_clone or an AppArmor policy): {said}"
        )
    return bwrap


def can_read(path: Path, user: HostUser) -> bool:
    """Whether ``user`` can reach ``path`` and read it (a directory: enter it too), asked as that user, so that the
    kernel decides with everything it weighs (mode bits, ACLs, groups); the caller always."""
    if not user.drop:
        return os.access(path, os.R_OK)
    checks = ("-r", "-x") if os.path.isdir(path) else ("-r",)
    return all(
        subprocess.run([*user.drop, "test", check, str(path)], capture_output=True, timeout=60, check=False).returncode
        == 0
        for check in checks
    )


def _readable(path: Path, user: HostUser, what: str) -> Path:
    if not can_read(path, user):
        raise SandboxUnavailable(
            f"The sandbox user {user.name!r} cannot read {what} at {path}: install it where that user can read it "
            "(not under a private home)."
        )
    return path


def _outside_usr(path: Path) -> bool:
    return not str(path).startswith("/usr/")


def python_inside(user: HostUser) -> tuple[str, tuple[Bind, ...]]:
    """The interpreter inside (this one when the user can run it, else the system's of the same version), and the
    binds it needs beyond /usr."""
    own = Path(os.path.realpath(sys.executable))
    prefix = Path(os.path.realpath(sys.base_prefix))
    if can_read(own, user) and can_read(prefix, user):
        return str(own), ((Bind(prefix),) if _outside_usr(prefix) else ())
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    system = Path(f"/usr/bin/python{version}")
    if system.is_file():
        return str(system), ()
    raise SandboxUnavailable(
        f"No Python {version} the sandbox user {user.name!r} can run: {own} is in a directory it cannot read; "
        f"install Python {version} system-wide (Debian: python3)."
    )


def python_path(user: HostUser) -> tuple[tuple[str, ...], tuple[Bind, ...]]:
    """The package's parent and the libraries' site-packages: on PYTHONPATH inside, bound read-only."""
    sites = dict.fromkeys(Path(sysconfig.get_paths()[key]) for key in ("purelib", "platlib"))
    binds = [Bind(_readable(PACKAGE, user, "the kotlin_llm_kernel package"))]
    binds += [Bind(_readable(site, user, "the Python libraries")) for site in sites if site.is_dir()]
    entries = [str(PACKAGE.parent), *(str(site) for site in sites)]
    return tuple(dict.fromkeys(entries)), tuple(binds)


def java_inside(user: HostUser) -> tuple[dict[str, str], tuple[Bind, ...], str | None]:
    """JAVA_HOME inside, the JDK's bind when outside /usr, and the real path of its net.properties (if any)."""
    try:
        java = find_java()
    except JavaNotFoundError as error:
        raise SandboxUnavailable(str(error)) from None
    home = Path(os.path.realpath(java.home))
    binds = (Bind(_readable(home, user, "the Java runtime")),) if _outside_usr(home) else ()
    net = home / "conf" / "net.properties"
    return {"JAVA_HOME": str(home)}, binds, (os.path.realpath(net) if net.is_file() else None)


def cache_inside(user: HostUser) -> tuple[dict[str, str], tuple[Bind, ...]]:
    """The class-data sharing cache, read-only (a session cannot plant an archive for the next): used when the user
    can read it; else class-data sharing is off inside (slower starts)."""
    cache = cache_dir()
    if cache.is_dir() and can_read(cache, user):
        return {ENV_CACHE_DIR: str(cache)}, (Bind(cache),)
    return {ENV_CDS: "0"}, ()
