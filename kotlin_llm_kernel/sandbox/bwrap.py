"""The command line that runs a command in a sandbox: bwrap (bubblewrap) with selective read-only binds of the system,
an empty home, a private /tmp, the workspace, an environment allowlist and, inside, :mod:`.inside` setting the limits
(and starting the proxy's relay) before it runs the command. Pure: what it binds is decided by :mod:`.host` and the
files it binds are written by :mod:`.sandbox`; here only the argv is put together."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..config.spares import ENV_SPARES
from .layout import EGRESS_SOCKET, HOSTNAME, INSIDE_HOME, INSIDE_USER, NETWORK_ENV, Bind, SandboxOptions

#: Pieces of /etc the JDK, Python and TLS need (those missing on the host are skipped): the JDK 17 of Debian links
#: its conf/security to /etc/java-17-openjdk, both JDKs' cacerts to /etc/ssl/certs/java, `java` to alternatives.
ETC = (
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/localtime",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/nsswitch.conf",
    "/etc/fonts",
    "/etc/timezone",
)
#: Also bound with the host's network (``all``): name resolution.
ETC_NETWORK = ("/etc/resolv.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols")
#: Host variables passed in unchanged; everything else is dropped (no tokens, no paths of the host).
ENV_ALLOWED = (
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TERM",
    "PYTHONUNBUFFERED",
    "PYTHONFAULTHANDLER",
    "KOTLIN_LLM_CDS",
    "KOTLIN_LLM_JVM_OPTIONS",
    "KOTLIN_LLM_EARLY_START",
)
#: The files :mod:`.sandbox` writes to the run directory and that are bound inside.
PASSWD, GROUP, HOSTS, SETTINGS, NET_PROPERTIES, SOCKET, SECCOMP = (
    "passwd",
    "group",
    "hosts",
    "settings.xml",
    "net.properties",
    "egress.sock",
    "seccomp.bpf",
)
#: The descriptor the seccomp filter is read from (opened by ``sh`` just before it becomes bwrap).
SECCOMP_FD = 9
#: The module run inside before the command (limits, relay).
INSIDE_MODULE = "kotlin_llm_kernel.sandbox.inside"


@dataclass(frozen=True)
class Place:
    """What a sandbox is made of on this host (found by :mod:`.host`, made by :mod:`.sandbox`)."""

    #: The directory of the files bound inside (passwd, group, hosts, settings.xml, net.properties, the socket).
    run_dir: Path
    workspace: Path
    #: The Python interpreter inside, and what it needs on its path (the package's parent, site-packages).
    python: str
    python_path: tuple[str, ...]
    #: Read-only binds besides the system's: site-packages, the package, the JDK or Python outside /usr, the cache.
    read_only: tuple[Bind, ...] = ()
    #: Where the JDK's net.properties is (its real path), covered by the run directory's copy naming the proxy.
    java_net_properties: str | None = None
    #: Variables set inside (JAVA_HOME, the class-data sharing cache...).
    env: Mapping[str, str] = field(default_factory=dict)
    #: The command that drops to the sandbox's user, when the caller is root (setpriv ...); empty otherwise.
    drop: tuple[str, ...] = ()
    bwrap: str = "bwrap"
    #: Whether the run directory holds the seccomp filter (:mod:`.seccomp`; none on some architectures).
    seccomp: bool = False


def passwd_text(uid: int, gid: int) -> str:
    """/etc/passwd inside: the one user, whose home is the empty one (JDK 17 reads user.home from here)."""
    own = f"{INSIDE_USER}:x:{uid}:{gid}:{INSIDE_USER}:{INSIDE_HOME}:/usr/sbin/nologin"
    return f"{own}\nnobody:x:65534:65534::/:/usr/sbin/nologin\n"


def group_text(gid: int) -> str:
    return f"{INSIDE_USER}:x:{gid}:\nnogroup:x:65534:\n"


def hosts_text() -> str:
    return f"127.0.0.1 localhost {HOSTNAME}\n::1 localhost ip6-localhost ip6-loopback\n"


def _limits(options: SandboxOptions) -> list[str]:
    limits = options.limits
    return [
        f"--nproc={limits.processes}",
        f"--fsize={limits.file_size}",
        f"--nofile={limits.open_files}",
    ]


def _environment(
    options: SandboxOptions, place: Place, env: Mapping[str, str], host_env: Mapping[str, str]
) -> dict[str, str]:
    values = {name: host_env[name] for name in ENV_ALLOWED if name in host_env}
    values.setdefault("LANG", "C.UTF-8")
    values |= {
        "HOME": INSIDE_HOME,
        "USER": INSIDE_USER,
        "LOGNAME": INSIDE_USER,
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "TMPDIR": "/tmp",
        "PYTHONPATH": os.pathsep.join(place.python_path),
        "PYTHONDONTWRITEBYTECODE": "1",
        NETWORK_ENV: options.network,
        ENV_SPARES: "0",  # one kernel per sandbox: a spare inside would only double its JVMs
    }
    return values | dict(place.env) | dict(env)


def sandboxed_command(
    argv: Sequence[str],
    options: SandboxOptions,
    place: Place,
    *,
    binds: Sequence[Bind] = (),
    env: Mapping[str, str] | None = None,
    info_fd: int | None = None,
    host_env: Mapping[str, str] | None = None,
) -> list[str]:
    """The argv running ``argv`` in the sandbox ``place`` (cwd: the workspace). ``binds`` are more paths inside (a
    kernel launcher's socket directory), ``env`` more variables (over the allowlisted ones of ``host_env``, default
    ``os.environ``), ``info_fd`` bwrap's ``--info-fd`` (the sandbox's pids, as JSON; pass the fd to the child)."""
    run = place.run_dir
    command = [*place.drop]
    if place.seccomp:  # bwrap reads the filter from a descriptor: sh opens it, then becomes bwrap
        script = f'filter="$1"; shift; exec "$@" {SECCOMP_FD}<"$filter"'
        command += ["/bin/sh", "-c", script, "sh", str(run / SECCOMP)]
    command.append(place.bwrap)
    command += ["--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--disable-userns"]
    if options.network == "all":
        command.append("--share-net")
    command += ["--hostname", HOSTNAME]
    command += ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        if os.path.islink(f"/{name}") or not os.path.exists(f"/{name}"):
            command += ["--symlink", f"usr/{name}", f"/{name}"]
        else:  # a host without the merged /usr
            command += ["--ro-bind", f"/{name}", f"/{name}"]
    etc = list(ETC) + (list(ETC_NETWORK) if options.network == "all" else [])
    etc += sorted(str(path) for path in Path("/etc").glob("java-*"))
    for path in etc:
        command += ["--ro-bind-try", path, path]
    command += ["--ro-bind", str(run / PASSWD), "/etc/passwd"]
    command += ["--ro-bind", str(run / GROUP), "/etc/group"]
    command += ["--ro-bind", str(run / HOSTS), "/etc/hosts"]
    command += ["--proc", "/proc", "--dev", "/dev"]
    command += ["--size", str(options.limits.tmp_size), "--tmpfs", "/tmp"]
    command += ["--size", str(options.limits.home_size), "--tmpfs", INSIDE_HOME]
    command += ["--dir", f"{INSIDE_HOME}/.m2"]
    for bind in place.read_only:
        command += ["--ro-bind", str(bind.source), bind.target]
    if options.network == "maven":
        command += ["--ro-bind", str(run / SETTINGS), f"{INSIDE_HOME}/.m2/settings.xml"]
        command += ["--ro-bind", str(run / SOCKET), EGRESS_SOCKET]
        if place.java_net_properties is not None:
            command += ["--ro-bind", str(run / NET_PROPERTIES), place.java_net_properties]
    command += ["--bind", str(place.workspace), str(place.workspace)]
    for bind in binds:
        command += ["--bind" if bind.writable else "--ro-bind", str(bind.source), bind.target]
    command += ["--chdir", str(place.workspace)]
    command.append("--clearenv")
    for name, value in sorted(
        _environment(options, place, env or {}, os.environ if host_env is None else host_env).items()
    ):
        command += ["--setenv", name, value]
    if info_fd is not None:
        command += ["--info-fd", str(info_fd)]
    if place.seccomp:
        command += ["--seccomp", str(SECCOMP_FD)]
    command += ["--", place.python, "-m", INSIDE_MODULE, *_limits(options)]
    if options.network == "maven":
        command += ["--relay", EGRESS_SOCKET]
    return [*command, "--", *argv]
