"""What a sandbox holds: its options and the fixed places inside (the home, the proxy's socket, the relay's port)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

#: The dedicated host user sandboxes run as when the caller is root (bwrap run by root is no sandbox).
SANDBOX_USER = "kotlin-llm-sandbox"
#: The name the code inside sees for itself, its home (an empty tmpfs) and its host name.
INSIDE_USER = "sandbox"
INSIDE_HOME = "/home/sandbox"
HOSTNAME = "sandbox"
#: Where the egress proxy's Unix socket appears inside, and where the relay inside listens for it.
EGRESS_SOCKET = "/run/egress.sock"
RELAY_HOST = "127.0.0.1"
RELAY_PORT = 3128

Network = Literal["maven", "none", "all"]
NETWORKS: tuple[Network, ...] = ("maven", "none", "all")
#: The variable that names the network mode: set inside, where the engine words a refused download by it (and read by
#: the kernel launcher outside, from a kernelspec's ``env``).
NETWORK_ENV = "KOTLIN_LLM_SANDBOX_NETWORK"

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """The resource limits set inside (per process, as rlimits): tasks of the sandbox's user, a file's size, open
    files; core dumps are off. The private /tmp and the home are tmpfs of these sizes (they count as memory)."""

    processes: int = 512
    file_size: int = 1024 * MIB
    open_files: int = 4096
    tmp_size: int = 512 * MIB
    home_size: int = 1024 * MIB


@dataclass(frozen=True)
class SandboxOptions:
    """How a session is sandboxed.

    ``workspace``: the one writable directory besides the private /tmp and the home (the session's working directory,
    bound at the same path inside); None: a fresh one, removed at the end. ``network``: ``maven`` (only the session's
    Maven repositories, through the allowlisting proxy), ``none`` (no network at all) or ``all`` (the host's network,
    everything open). ``repositories``: the Maven repositories the session is configured with besides Maven Central
    (the proxy lets them through). ``allowed_hosts``: more ``host:port`` the proxy lets through."""

    workspace: Path | None = None
    network: Network = "maven"
    repositories: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()
    limits: Limits = Limits()
    #: The host user the sandbox runs as when the caller is root.
    user: str = SANDBOX_USER

    def __post_init__(self) -> None:
        if self.network not in NETWORKS:
            raise ValueError(f"network must be one of {', '.join(NETWORKS)}, not {self.network!r}")


@dataclass(frozen=True)
class Bind:
    """A host path seen inside at ``inside`` (default: the same path), read-only unless ``writable``."""

    source: Path
    inside: str | None = None
    writable: bool = False

    @property
    def target(self) -> str:
        return self.inside or str(self.source)
